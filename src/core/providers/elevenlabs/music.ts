import { MediaOutput, MusicRequest, ProviderConnection, ProviderError } from '../types';
import { elevenlabsFetch, readBody } from './errors';

/** POST /v1/music {prompt, music_length_ms, model_id} -> the whole track as audio bytes (no job to poll). */
export async function compose(req: MusicRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaOutput> {
  const prompt = req.prompt ?? '';
  if (prompt.trim() === '') throw new ProviderError('bad_request', 'a music prompt is required', 'elevenlabs');
  const seconds = Math.round(Math.min(120, Math.max(15, req.durationSeconds ?? 30)));
  const res = await elevenlabsFetch(conn, {
    method: 'POST',
    path: '/v1/music?output_format=mp3_44100_128',
    body: { prompt, music_length_ms: seconds * 1000, model_id: req.upstreamModel },
    signal,
  });
  const data = await readBody(res, signal);
  return { files: [{ data, mime: 'audio/mpeg', filename: 'music.mp3' }], durationSeconds: seconds };
}
