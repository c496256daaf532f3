import { UpstreamRequest, upstreamFetch } from '../http';
import { ProviderConnection, ProviderError } from '../types';

/** One call with `xi-api-key`; a non-2xx answer is classified by the ElevenLabs fault table (faults/elevenlabs.ts). */
export async function elevenlabsFetch(conn: ProviderConnection, req: UpstreamRequest): Promise<Response> {
  // The official base URL has no path, so a configured one may arrive as `https://host/`: join without `//`.
  const path = /^https?:\/\//.test(req.path) ? req.path : conn.baseUrl.replace(/\/+$/, '') + req.path;
  return upstreamFetch('elevenlabs', conn, { ...req, path, headers: { ...req.headers, 'xi-api-key': conn.apiKey } });
}

/** Reads a whole response body; a connection that breaks off mid-body is an upstream failure (or our timeout). */
export async function readBody(res: Response, signal?: AbortSignal): Promise<Buffer> {
  try {
    return Buffer.from(await res.arrayBuffer());
  } catch (err) {
    if (signal?.aborted) throw err;
    const name = (err as { name?: string } | null)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new ProviderError('timeout', 'elevenlabs did not finish answering in time', 'elevenlabs');
    }
    throw new ProviderError('upstream', `elevenlabs answer broke off: ${(err as Error).message}`, 'elevenlabs');
  }
}
