// A finished transcription in the answer formats of OpenAI's Audio API: json, text, srt, vtt, verbose_json and
// diarized_json. The times come from the vendor's segments (kept with the result); a vendor that gives none yields
// one segment over the whole audio.
import type { GenerationRecord } from '../../../core/records';
import type { TranscriptFormat } from './audio-request';

interface Segment {
  start: number;
  end: number;
  text: string;
  speaker?: number;
}

interface Word {
  word: string;
  start: number;
  end: number;
}

/** Reading speed assumed when neither the vendor nor the audio tells the duration (characters per second). */
const CHARACTERS_PER_SECOND = 15;

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** The transcript's text without the `[Speaker N]: ` prefixes of a diarized result. */
function plainText(g: GenerationRecord): string {
  return (g.resultText ?? '')
    .split('\n')
    .map((line) => line.replace(/^\[Speaker \d+\]: /, ''))
    .join(' ')
    .trim();
}

function segmentsOf(g: GenerationRecord): Segment[] {
  const stored = g.resultMetadata?.segments;
  if (Array.isArray(stored) && stored.length > 0) return stored as Segment[];
  const text = plainText(g);
  const end = duration(g, []) || Math.max(1, text.length / CHARACTERS_PER_SECOND);
  return text ? [{ start: 0, end: round(end), text }] : [];
}

function duration(g: GenerationRecord, segments: readonly Segment[]): number {
  if (g.durationSeconds !== null && g.durationSeconds > 0) return g.durationSeconds;
  return segments.at(-1)?.end ?? 0;
}

/** `1` -> `A`, `27` -> `AA`: speakers labelled as OpenAI labels unknown ones. */
function speakerLabel(n: number | undefined): string {
  let label = '';
  for (let i = n ?? 1; i > 0; i = Math.floor((i - 1) / 26)) label = String.fromCharCode(65 + ((i - 1) % 26)) + label;
  return label;
}

function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

function captions(segments: readonly Segment[], separator: ',' | '.', numbered: boolean): string {
  return segments
    .map((s, i) => {
      const speaker = s.speaker !== undefined ? `[Speaker ${s.speaker}]: ` : '';
      const cue = `${timestamp(s.start, separator)} --> ${timestamp(s.end, separator)}\n${speaker}${s.text}\n`;
      return numbered ? `${i + 1}\n${cue}` : cue;
    })
    .join('\n');
}

/** English name of a language code, lower case, as Whisper's verbose_json names it (`english`). */
function languageName(code: unknown): string {
  if (typeof code !== 'string' || code === '') return 'unknown';
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code)?.toLowerCase() ?? code;
  } catch {
    return code;
  }
}

export interface RenderedTranscript {
  body: string | Record<string, unknown>;
  type: 'application/json' | 'text/plain' | 'text/vtt';
}

/**
 * The answer of one finished transcription (or translation: `task`) in `format`; `words` adds the vendor's word
 * timings to verbose_json. JSON answers carry the `service` object of the other /v1 answers.
 */
export function renderTranscript(
  g: GenerationRecord,
  format: TranscriptFormat,
  options: { task: 'transcribe' | 'translate'; words: boolean; service: Record<string, number> },
): RenderedTranscript {
  const segments = segmentsOf(g);
  const seconds = round(duration(g, segments));
  const usage = seconds > 0 ? { type: 'duration', seconds: Math.ceil(seconds) } : undefined;
  switch (format) {
    case 'text':
      return { body: `${g.resultText ?? ''}\n`, type: 'text/plain' };
    case 'srt':
      return { body: captions(segments, ',', true), type: 'text/plain' };
    case 'vtt':
      return { body: `WEBVTT\n\n${captions(segments, '.', false)}`, type: 'text/vtt' };
    case 'json':
      return { body: { text: g.resultText ?? '', ...(usage ? { usage } : {}), service: options.service }, type: 'application/json' };
    case 'verbose_json': {
      const words = g.resultMetadata?.words;
      return {
        body: {
          task: options.task,
          language: options.task === 'translate' ? 'english' : languageName(g.resultMetadata?.language),
          duration: seconds,
          text: plainText(g),
          // Whisper's decoding statistics are not measured here: 0.
          segments: segments.map((s, id) => ({
            id,
            seek: 0,
            start: s.start,
            end: s.end,
            text: s.text,
            tokens: [],
            temperature: 0,
            avg_logprob: 0,
            compression_ratio: 0,
            no_speech_prob: 0,
          })),
          ...(options.words && Array.isArray(words) ? { words: words as Word[] } : {}),
          ...(usage ? { usage } : {}),
          service: options.service,
        },
        type: 'application/json',
      };
    }
    case 'diarized_json':
      return {
        body: {
          task: 'transcribe',
          duration: seconds,
          text: plainText(g),
          segments: segments.map((s, i) => ({
            type: 'transcript.text.segment',
            id: `seg_${i}`,
            start: s.start,
            end: s.end,
            text: s.text,
            speaker: speakerLabel(s.speaker),
          })),
          ...(usage ? { usage } : {}),
          service: options.service,
        },
        type: 'application/json',
      };
  }
}
