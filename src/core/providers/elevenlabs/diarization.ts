import type { TranscriptSegment } from '../types';

/** One entry of Scribe's `words` array. */
export interface ScribeWord {
  text: string;
  start?: number;
  end?: number;
  type?: string; // word | spacing | audio_event
  speaker_id?: string | null;
}

/** A pause this long (seconds) between words starts a new segment. */
const SEGMENT_PAUSE = 1;

/**
 * Timed segments of Scribe's words: a segment ends at a sentence's end, a pause or (when diarized) a change of
 * speaker; speakers are numbered from 1 in order of first appearance, as in the text form.
 */
export function timedSegments(words: ScribeWord[], diarized: boolean): TranscriptSegment[] {
  const numbers = new Map<string, number>();
  const segments: TranscriptSegment[] = [];
  let current: TranscriptSegment | undefined;
  let closed = true;
  for (const word of words) {
    if (word.type === 'spacing' || word.start === undefined || word.end === undefined) {
      if (current) current.text += word.text;
      continue;
    }
    const id = diarized ? (word.speaker_id ?? undefined) : undefined;
    if (id !== undefined && !numbers.has(id)) numbers.set(id, numbers.size + 1);
    const speaker = id !== undefined ? numbers.get(id) : undefined;
    const paused = current !== undefined && word.start - current.end >= SEGMENT_PAUSE;
    if (!current || closed || paused || speaker !== current.speaker) {
      current = { start: word.start, end: word.end, text: '', ...(speaker !== undefined ? { speaker } : {}) };
      segments.push(current);
    }
    current.text += word.text;
    current.end = word.end;
    closed = word.type !== 'audio_event' && /[.!?…]["'»”)\]]*$/.test(word.text);
  }
  return segments.map((s) => ({ ...s, text: s.text.replace(/\s+/g, ' ').trim() })).filter((s) => s.text !== '');
}

/**
 * Turns diarized words into our text form: one line per run of one speaker, `[Speaker N]: ...`, with N counted
 * from 1 in order of first appearance (speaker_0 is not necessarily Speaker 1). Spacing tokens keep the
 * words apart; tokens without a speaker stay with the current line.
 */
export function diarizedText(words: ScribeWord[]): string {
  const numbers = new Map<string, number>();
  const lines: Array<{ speaker: number; text: string }> = [];
  for (const word of words) {
    const id = word.speaker_id ?? undefined;
    const isSpeech = word.type !== 'spacing';
    if (id !== undefined && isSpeech) {
      if (!numbers.has(id)) numbers.set(id, numbers.size + 1);
      const speaker = numbers.get(id) as number;
      if (lines.length === 0 || lines[lines.length - 1].speaker !== speaker) lines.push({ speaker, text: '' });
    }
    if (lines.length === 0) continue; // leading spacing before anyone spoke
    lines[lines.length - 1].text += word.text;
  }
  return lines
    .map((line) => ({ ...line, text: line.text.replace(/\s+/g, ' ').trim() }))
    .filter((line) => line.text !== '')
    .map((line) => `[Speaker ${line.speaker}]: ${line.text}`)
    .join('\n');
}
