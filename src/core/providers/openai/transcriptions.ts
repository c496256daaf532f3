import { z } from 'zod';
import { bearerPost, readJsonBody } from '../openai-compatible';
import { InputFile, MediaOutput, SttRequest, ProviderConnection, ProviderError } from '../types';
import { extensionOf } from '../../media/mime';

// OpenAI tells the audio format by the file name's extension, so the upload must carry a fitting one.
const transcriptionSchema = z.object({
  text: z.string(),
  usage: z
    .union([
      z.object({ type: z.literal('duration'), seconds: z.number() }),
      z.object({ type: z.literal('tokens'), input_tokens: z.number(), output_tokens: z.number() }),
    ])
    .nullish()
    .catch(undefined),
  // verbose_json (whisper-1): the language by name, the duration and timed segments (and words when asked).
  language: z.string().nullish().catch(undefined),
  duration: z.number().nullish().catch(undefined),
  segments: z
    .array(z.object({ start: z.number(), end: z.number(), text: z.string() }))
    .nullish()
    .catch(undefined),
  words: z
    .array(z.object({ word: z.string(), start: z.number(), end: z.number() }))
    .nullish()
    .catch(undefined),
});

/** Whisper answers verbose_json (timed segments); the GPT-4o transcription models only json and text. */
function answersVerbose(upstreamModel: string): boolean {
  return upstreamModel.startsWith('whisper');
}

// The languages Whisper names, by their ISO 639-1 codes.
const ISO_639_1 = (
  'af ar hy az be bs bg ca zh hr cs da nl en et fi fr gl de el he hi hu is id it ja kn kk ko lv lt mk ms mr mi ne no ' +
  'fa pl pt ro ru sr sk sl es sw sv tl ta th tr uk ur vi cy'
).split(' ');

/** Whisper names the language in English ("english"); the service keeps ISO 639-1 codes where it can tell. */
function languageCode(name: string | null | undefined): string | undefined {
  if (!name) return undefined;
  if (/^[a-z]{2,3}$/.test(name)) return name;
  const names = new Intl.DisplayNames(['en'], { type: 'language' });
  const lower = name.toLowerCase();
  return ISO_639_1.find((code) => names.of(code)?.toLowerCase() === lower);
}

export function uploadName(audio: InputFile): string {
  if (audio.filename && /\.[a-z0-9]{2,4}$/i.test(audio.filename)) return audio.filename;
  const ext = extensionOf(audio.mime, 'mp3');
  return `audio.${ext}`;
}

/** The documented multipart form of POST /audio/transcriptions (or /audio/translations, which takes no language). */
export function buildTranscriptionForm(req: SttRequest): FormData {
  if (!req.audio) throw new ProviderError('bad_request', 'an audio file is required', 'openai');
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(req.audio.data)], { type: req.audio.mime }), uploadName(req.audio));
  form.append('model', req.upstreamModel);
  if (req.language && !req.translate) form.append('language', req.language);
  if (req.prompt) form.append('prompt', req.prompt);
  form.append('response_format', answersVerbose(req.upstreamModel) ? 'verbose_json' : 'json');
  return form;
}

export async function transcribeWithOpenAi(req: SttRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaOutput> {
  const res = await bearerPost(conn, {
    provider: 'openai',
    path: req.translate ? '/audio/translations' : '/audio/transcriptions',
    body: buildTranscriptionForm(req),
    signal,
  });
  const parsed = transcriptionSchema.safeParse(await readJsonBody('openai', res, signal));
  if (!parsed.success) throw new ProviderError('upstream', 'openai returned a transcription without text', 'openai');
  const { text, usage, duration, segments, words } = parsed.data;
  const out: MediaOutput = { files: [], text };
  if (segments?.length) out.segments = segments.map((s) => ({ start: s.start, end: s.end, text: s.text.trim() }));
  if (words?.length) out.words = words;
  const language = req.translate ? 'en' : (languageCode(parsed.data.language) ?? req.language);
  if (language) out.language = language;
  if (usage?.type === 'duration') return { ...out, durationSeconds: usage.seconds, usage: { seconds: usage.seconds } };
  if (usage?.type === 'tokens') return { ...out, usage: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens } };
  if (typeof duration === 'number') return { ...out, durationSeconds: duration, usage: { seconds: duration } };
  return out;
}
