import { upstreamFetch } from '../http';
import { InputFile, ProviderConnection, ProviderError } from '../types';

/**
 * Downloads a result from the signed delivery URL BFL hands out (it needs no key, so none is sent).
 * A body that breaks off becomes a ProviderError like any other upstream failure.
 */
export async function downloadSample(conn: ProviderConnection, url: string, signal?: AbortSignal): Promise<InputFile> {
  const res = await upstreamFetch('bfl', conn, { method: 'GET', path: url, signal });
  let data: Buffer;
  try {
    data = Buffer.from(await res.arrayBuffer());
  } catch (err) {
    if (signal?.aborted) throw err;
    const name = (err as { name?: string } | null)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new ProviderError('timeout', 'bfl result download did not finish in time', 'bfl');
    }
    throw new ProviderError('upstream', `bfl result download broke off: ${(err as Error).message}`, 'bfl');
  }
  const mime = res.headers.get('content-type')?.split(';')[0].trim() || mimeFromUrl(url);
  return { data, mime, filename: filenameFromUrl(url) };
}

function filenameFromUrl(url: string): string | undefined {
  try {
    return new URL(url).pathname.split('/').pop() || undefined;
  } catch {
    return undefined;
  }
}

function mimeFromUrl(url: string): string {
  const name = filenameFromUrl(url) ?? '';
  if (/\.png$/i.test(name)) return 'image/png';
  if (/\.jpe?g$/i.test(name)) return 'image/jpeg';
  if (/\.webp$/i.test(name)) return 'image/webp';
  return 'application/octet-stream';
}
