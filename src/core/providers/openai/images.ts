import { generateImages } from '../openai-compatible';
import { MediaOutput, ImageRequest, ProviderConnection, ProviderError } from '../types';
import { nearestSize } from './sizes';

const DALL_E_3_SIZES = ['1024x1024', '1792x1024', '1024x1792'] as const;
const GPT_IMAGE_SIZES = ['1024x1024', '1536x1024', '1024x1536'] as const;
const DALL_E_2_SIZES = ['1024x1024', '512x512', '256x256'] as const;

/** GPT image models take low/medium/high; our two levels map onto the upper two. */
const GPT_IMAGE_QUALITY = { standard: 'medium', hd: 'high' } as const;

/** The documented /images/generations body for each OpenAI image model family. */
export function buildImageBody(req: ImageRequest): Record<string, unknown> {
  const model = req.upstreamModel;
  const body: Record<string, unknown> = { model, prompt: req.prompt, n: 1 };
  if (model.startsWith('gpt-image')) {
    // GPT image models always answer base64 and reject `response_format` and `style`.
    body.size = nearestSize(req.size, GPT_IMAGE_SIZES);
    if (req.quality) body.quality = GPT_IMAGE_QUALITY[req.quality];
  } else if (model === 'dall-e-3') {
    body.size = nearestSize(req.size, DALL_E_3_SIZES);
    body.quality = req.quality ?? 'standard';
    if (req.style) body.style = req.style;
    body.response_format = 'b64_json';
  } else {
    body.size = nearestSize(req.size, DALL_E_2_SIZES);
    body.response_format = 'b64_json';
  }
  return body;
}

export async function generateOpenAiImage(req: ImageRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaOutput> {
  if (!req.prompt) throw new ProviderError('bad_request', 'an image prompt is required', 'openai');
  const files = await generateImages(conn, { provider: 'openai', body: buildImageBody(req), signal });
  return { files };
}
