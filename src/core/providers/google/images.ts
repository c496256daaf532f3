import { upstreamJson } from '../http';
import { MediaOutput, ImageRequest, ProviderConnection, ProviderError } from '../types';
import { GEMINI_IMAGE_RATIOS, nearestRatio } from './aspect';
import { googleHeaders, modelPath } from './auth';
import { blockedError, isPolicyFinish } from './errors';
import { GeminiPart, generateContentResponse } from './wire';

function post(conn: ProviderConnection, path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
  return upstreamJson<unknown>('google', conn, { path, headers: googleHeaders(conn), body, signal });
}

function requirePrompt(req: ImageRequest): string {
  if (!req.prompt) throw new ProviderError('bad_request', 'a prompt is required', 'google');
  return req.prompt;
}

/**
 * Gemini native image generation (gemini-2.5-flash-image): generateContent asking for the IMAGE modality, the
 * aspect ratio in `generationConfig.imageConfig`, and an optional input image as inline data for edits.
 */
export async function geminiImage(req: ImageRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaOutput> {
  const parts: GeminiPart[] = [{ text: requirePrompt(req) }];
  for (const image of req.images ?? []) {
    parts.push({ inline_data: { mime_type: image.mime, data: image.data.toString('base64') } });
  }
  const generationConfig: Record<string, unknown> = { responseModalities: ['TEXT', 'IMAGE'] };
  const aspectRatio = nearestRatio(req.size, GEMINI_IMAGE_RATIOS);
  if (aspectRatio) generationConfig.imageConfig = { aspectRatio };
  if (req.seed !== undefined) generationConfig.seed = req.seed;

  const raw = await post(
    conn,
    `${modelPath(req.upstreamModel)}:generateContent`,
    { contents: [{ role: 'user', parts }], generationConfig },
    signal,
  );
  const parsed = generateContentResponse.safeParse(raw);
  if (!parsed.success) throw new ProviderError('upstream', 'google answered with an unexpected response shape', 'google');
  const res = parsed.data;
  const candidate = res.candidates?.[0];
  if (!candidate && res.promptFeedback?.blockReason) throw blockedError(res.promptFeedback.blockReason);
  const files = (candidate?.content?.parts ?? []).flatMap((p) =>
    p.inlineData ? [{ data: Buffer.from(p.inlineData.data, 'base64'), mime: p.inlineData.mimeType }] : [],
  );
  if (files.length > 0) return { files };
  if (isPolicyFinish(candidate?.finishReason)) throw blockedError(candidate!.finishReason!);
  const said = (candidate?.content?.parts ?? [])
    .flatMap((p) => (p.text ? [p.text] : []))
    .join(' ')
    .slice(0, 200);
  throw new ProviderError(
    'upstream',
    `google returned no image (finishReason ${candidate?.finishReason ?? 'none'})${said ? `: ${said}` : ''}`,
    'google',
  );
}
