import { bearerPost } from '../openai-compatible';
import { bodyReadFailure } from '../openai-compatible/transport';
import { MediaOutput, TtsRequest, ProviderConnection, ProviderError } from '../types';

const FORMAT_MIME = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
} as const;
type SpeechFormat = keyof typeof FORMAT_MIME;

const DEFAULT_VOICE = 'alloy';

function speechFormat(requested: string | undefined): SpeechFormat {
  const format = (requested ?? 'mp3').toLowerCase();
  if (format in FORMAT_MIME) return format as SpeechFormat;
  throw new ProviderError('bad_request', `speech format "${format}" is not one of ${Object.keys(FORMAT_MIME).join(', ')}`, 'openai');
}

/** The documented POST /audio/speech body. */
export function buildSpeechBody(req: TtsRequest): Record<string, unknown> {
  if (!req.prompt) throw new ProviderError('bad_request', 'text to speak is required', 'openai');
  const body: Record<string, unknown> = {
    model: req.upstreamModel,
    input: req.prompt,
    voice: req.voiceId ?? DEFAULT_VOICE,
    response_format: speechFormat(req.audioFormat),
  };
  if (req.speed !== undefined) body.speed = req.speed;
  return body;
}

export async function synthesizeOpenAiSpeech(req: TtsRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaOutput> {
  const body = buildSpeechBody(req);
  const format = body.response_format as SpeechFormat;
  const res = await bearerPost(conn, { provider: 'openai', path: '/audio/speech', body, signal });
  let data: Buffer;
  try {
    data = Buffer.from(await res.arrayBuffer());
  } catch (err) {
    throw bodyReadFailure('openai', err, signal);
  }
  if (data.length === 0) throw new ProviderError('upstream', 'openai returned empty audio', 'openai');
  const mime = res.headers.get('content-type')?.split(';')[0].trim() || FORMAT_MIME[format];
  return {
    files: [{ data, mime, filename: `speech.${format}` }],
    usage: { characters: (req.prompt ?? '').length },
  };
}
