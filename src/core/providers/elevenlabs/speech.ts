import { MediaOutput, TtsRequest, ProviderConnection, ProviderError } from '../types';
import { elevenlabsFetch, readBody } from './errors';
import { pcmToWav } from '../wav';

/** Used when the request names no voice: "George", one of the default voices in ElevenLabs' own examples. */
export const DEFAULT_VOICE_ID = 'JBFqnCBsd6RMkjVDRZzb';

const PCM_RATE = 24000;

/** Our audio format -> the `output_format` query value; WAV is asked for as raw PCM and wrapped by us. */
function outputFormat(format: string | undefined): { query: string; mime: string; wav: boolean } {
  if (format === 'wav') return { query: `pcm_${PCM_RATE}`, mime: 'audio/wav', wav: true };
  return { query: 'mp3_44100_128', mime: 'audio/mpeg', wav: false };
}

/** POST /v1/text-to-speech/{voice_id}?output_format=...: JSON in, audio bytes out. */
export async function synthesize(req: TtsRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaOutput> {
  const text = req.prompt ?? '';
  if (text.trim() === '') throw new ProviderError('bad_request', 'text to speak is empty', 'elevenlabs');
  const format = outputFormat(req.audioFormat);
  const body: Record<string, unknown> = { text, model_id: req.upstreamModel };
  // voice_settings.speed is documented for 0.7..1.2 (1.0 = normal).
  if (req.speed !== undefined) body.voice_settings = { speed: Math.min(1.2, Math.max(0.7, req.speed)) };
  const voice = encodeURIComponent(req.voiceId || DEFAULT_VOICE_ID);
  const res = await elevenlabsFetch(conn, {
    method: 'POST',
    path: `/v1/text-to-speech/${voice}?output_format=${format.query}`,
    body,
    signal,
  });
  const audio = await readBody(res, signal);
  const cost = Number(res.headers.get('character-cost'));
  return {
    files: [{ data: format.wav ? pcmToWav(audio, PCM_RATE) : audio, mime: format.mime, filename: `speech.${format.wav ? 'wav' : 'mp3'}` }],
    usage: Number.isFinite(cost) && res.headers.has('character-cost') ? { characters: cost } : undefined,
  };
}
