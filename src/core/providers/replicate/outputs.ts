import { upstreamBytes } from '../http';
import { InputFile, ProviderConnection, ProviderError } from '../types';
import { fromDataUri } from './data-uri';
import { mimeOfExtension } from '../../media/mime';

/** File URLs in a prediction's output: a URL, an array of URLs, or an object holding them. */
export function outputUrls(output: unknown): string[] {
  if (typeof output === 'string') return /^(https?:|data:)/i.test(output) ? [output] : [];
  if (Array.isArray(output)) return output.flatMap(outputUrls);
  if (output && typeof output === 'object') return Object.values(output).flatMap(outputUrls);
  return [];
}

function filenameOf(url: string): string | undefined {
  return new URL(url).pathname.split('/').pop() || undefined;
}

function mimeOf(res: Response, filename: string | undefined): string {
  const header = res.headers.get('content-type')?.split(';')[0].trim();
  if (header && header !== 'application/octet-stream') return header;
  const ext = filename?.split('.').pop()?.toLowerCase() ?? '';
  return mimeOfExtension(ext) ?? 'application/octet-stream';
}

/**
 * Downloads one output file. Replicate serves files from replicate.delivery (no auth); file URLs on the API
 * host itself need the token, so it is sent only when the URL is on the configured base URL's origin.
 */
export async function downloadOutput(conn: ProviderConnection, url: string, signal?: AbortSignal): Promise<InputFile> {
  if (url.startsWith('data:')) {
    const file = fromDataUri(url);
    if (!file) throw new ProviderError('upstream', 'replicate returned an unreadable data URI', 'replicate');
    return file;
  }
  const sameOrigin = new URL(url).origin === new URL(conn.baseUrl).origin;
  const { data, res } = await upstreamBytes('replicate', conn, {
    method: 'GET',
    path: url,
    headers: sameOrigin ? { authorization: `Bearer ${conn.apiKey}` } : {},
    signal,
  });
  const filename = filenameOf(url);
  return { data, mime: mimeOf(res, filename), filename };
}
