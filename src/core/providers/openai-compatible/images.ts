import { z } from 'zod';
import { upstreamBytes } from '../http';
import { InputFile, ProviderConnection, ProviderError, ProviderName } from '../types';
import { bearerPost, readJsonBody } from './transport';
import { extensionOf } from '../../media/mime';
import { sniffImage } from '../../media/sniff';

const imagesResponseSchema = z.object({
  data: z.array(z.object({ b64_json: z.string().nullish(), url: z.string().nullish(), revised_prompt: z.string().nullish() })).nullish(),
});

/** Image type from the file's magic bytes; vendors do not label base64 payloads reliably. */
function sniffImageMime(data: Buffer): string | undefined {
  return sniffImage(data)?.mime;
}

function decodeBase64Image(provider: ProviderName, b64: string, index: number): InputFile {
  // xAI's docs show the payload as a data URI; OpenAI sends bare base64. Accept both.
  const data = Buffer.from(b64.replace(/^data:[^,]*,/, ''), 'base64');
  const mime = sniffImageMime(data);
  if (!mime) throw new ProviderError('upstream', `${provider} returned image data that is not an image`, provider);
  return { data, mime, filename: `image-${index + 1}.${extensionOf(mime)}` };
}

export interface ImageGeneration {
  provider: ProviderName;
  body: Record<string, unknown>;
  signal?: AbortSignal;
  refineError?: (err: ProviderError) => ProviderError;
}

/** POST /images/generations (OpenAI and xAI share the shape) and return the images as bytes. */
export async function generateImages(conn: ProviderConnection, req: ImageGeneration): Promise<InputFile[]> {
  const { provider, signal } = req;
  const res = await bearerPost(conn, {
    provider,
    path: '/images/generations',
    body: req.body,
    signal,
    refineError: req.refineError,
  });
  const parsed = imagesResponseSchema.safeParse(await readJsonBody(provider, res, signal));
  const items = parsed.success ? (parsed.data.data ?? []) : [];
  if (items.length === 0) throw new ProviderError('upstream', `${provider} returned no image`, provider);
  const files: InputFile[] = [];
  for (const [index, item] of items.entries()) {
    if (item.b64_json) {
      files.push(decodeBase64Image(provider, item.b64_json, index));
    } else if (item.url) {
      const { data, mime } = await upstreamBytes(provider, conn, { path: item.url, signal });
      const sniffed = sniffImageMime(data) ?? mime ?? 'application/octet-stream';
      files.push({ data, mime: sniffed, filename: `image-${index + 1}.${extensionOf(sniffed)}` });
    } else {
      throw new ProviderError('upstream', `${provider} returned an image entry without data`, provider);
    }
  }
  return files;
}
