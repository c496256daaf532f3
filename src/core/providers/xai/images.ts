import { generateImages } from '../openai-compatible';
import { MediaOutput, ImageRequest, ProviderConnection, ProviderError } from '../types';
import { refineXaiError } from './chat';

/**
 * xAI's /images/generations takes model, prompt, n and response_format only: it answers
 * "Argument not supported" to size, quality and style. It returns a fixed-size JPEG; our sharp
 * post-processing brings it to the requested size.
 */
export function buildXaiImageBody(req: ImageRequest): Record<string, unknown> {
  return { model: req.upstreamModel, prompt: req.prompt, n: 1, response_format: 'b64_json' };
}

export async function generateXaiImage(req: ImageRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaOutput> {
  if (!req.prompt) throw new ProviderError('bad_request', 'an image prompt is required', 'xai');
  const files = await generateImages(conn, {
    provider: 'xai',
    body: buildXaiImageBody(req),
    signal,
    refineError: refineXaiError,
  });
  return { files };
}
