import { z } from 'zod';
import { MediaOutput, SttRequest, ProviderConnection, ProviderError } from '../types';
import { diarizedText, timedSegments } from './diarization';
import { elevenlabsFetch, readBody } from './errors';

const scribeResponse = z.object({
  text: z.string(),
  language_code: z.string().optional(),
  audio_duration_secs: z.number().optional(),
  words: z
    .array(
      z.object({
        text: z.string(),
        start: z.number().optional(),
        end: z.number().optional(),
        type: z.string().optional(),
        speaker_id: z.string().nullish(),
      }),
    )
    .optional(),
});

/** Scribe names languages by ISO 639-3 (`eng`) or 639-1 codes; the service keeps 639-1 where one exists. */
function iso6391(code: string): string {
  try {
    return new Intl.Locale(code).language; // ICU writes `eng` as `en`
  } catch {
    return code;
  }
}

/** POST /v1/speech-to-text (multipart: model_id, file, language_code, diarize) -> {text, words, ...}. */
export async function transcribe(req: SttRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaOutput> {
  if (!req.audio) throw new ProviderError('bad_request', 'speech-to-text needs an audio file', 'elevenlabs');
  const form = new FormData();
  form.append('model_id', req.upstreamModel);
  form.append('file', new Blob([req.audio.data], { type: req.audio.mime }), req.audio.filename ?? 'audio');
  if (req.language) form.append('language_code', req.language);
  form.append('diarize', req.diarize ? 'true' : 'false');
  const res = await elevenlabsFetch(conn, { method: 'POST', path: '/v1/speech-to-text', body: form, signal });
  let raw: unknown;
  try {
    raw = JSON.parse((await readBody(res, signal)).toString('utf8'));
  } catch (err) {
    if (err instanceof ProviderError || signal?.aborted) throw err;
    throw new ProviderError('upstream', 'elevenlabs answered speech-to-text with a body that is not JSON', 'elevenlabs');
  }
  const parsed = scribeResponse.safeParse(raw);
  if (!parsed.success) throw new ProviderError('upstream', 'elevenlabs answered speech-to-text without text', 'elevenlabs');
  const body = parsed.data;
  const words = body.words ?? [];
  const lastEnd = words.length > 0 ? words[words.length - 1].end : undefined;
  const duration = body.audio_duration_secs ?? lastEnd;
  const diarized = req.diarize && words.some((w) => w.speaker_id) ? diarizedText(words) : '';
  const timed = words.filter((w) => w.type !== 'spacing' && w.start !== undefined && w.end !== undefined);
  return {
    files: [],
    text: diarized || body.text.trim(),
    segments: timedSegments(words, req.diarize === true),
    ...(timed.length > 0 ? { words: timed.map((w) => ({ word: w.text, start: w.start!, end: w.end! })) } : {}),
    ...(body.language_code ? { language: iso6391(body.language_code) } : {}),
    durationSeconds: duration,
    usage: body.audio_duration_secs !== undefined ? { seconds: body.audio_duration_secs } : undefined,
  };
}
