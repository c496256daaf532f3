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
});

export function uploadName(audio: InputFile): string {
  if (audio.filename && /\.[a-z0-9]{2,4}$/i.test(audio.filename)) return audio.filename;
  const ext = extensionOf(audio.mime, 'mp3');
  return `audio.${ext}`;
}

/** The documented multipart POST /audio/transcriptions form. */
export function buildTranscriptionForm(req: SttRequest): FormData {
  if (!req.audio) throw new ProviderError('bad_request', 'an audio file is required', 'openai');
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(req.audio.data)], { type: req.audio.mime }), uploadName(req.audio));
  form.append('model', req.upstreamModel);
  if (req.language) form.append('language', req.language);
  form.append('response_format', 'json');
  return form;
}

export async function transcribeWithOpenAi(req: SttRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaOutput> {
  const res = await bearerPost(conn, {
    provider: 'openai',
    path: '/audio/transcriptions',
    body: buildTranscriptionForm(req),
    signal,
  });
  const parsed = transcriptionSchema.safeParse(await readJsonBody('openai', res, signal));
  if (!parsed.success) throw new ProviderError('upstream', 'openai returned a transcription without text', 'openai');
  const { text, usage } = parsed.data;
  if (usage?.type === 'duration') return { files: [], text, durationSeconds: usage.seconds, usage: { seconds: usage.seconds } };
  if (usage?.type === 'tokens') {
    return { files: [], text, usage: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens } };
  }
  return { files: [], text };
}
