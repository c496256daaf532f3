import { mimeOfExtension } from '../../media/mime';
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

/** The type the delivery URL's file name implies (from the one MIME table), for an unlabelled download. */
function mimeFromUrl(url: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(filenameFromUrl(url) ?? '')?.[1];
  return (ext && mimeOfExtension(ext)) || 'application/octet-stream';
}
