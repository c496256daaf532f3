import { upstreamBytes } from '../http';
import { InputFile, ProviderConnection } from '../types';

/**
 * Downloads a result from the signed delivery URL BFL hands out (it needs no key, so none is sent).
 * A body that breaks off becomes a ProviderError like any other upstream failure.
 */
export async function downloadSample(conn: ProviderConnection, url: string, signal?: AbortSignal): Promise<InputFile> {
  const downloaded = await upstreamBytes('bfl', conn, { method: 'GET', path: url, signal });
  const data = downloaded.data;
  const mime = downloaded.mime || mimeFromUrl(url);
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
