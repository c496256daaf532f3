import { UpstreamRequest, upstreamFetch } from '../http';
import { ProviderConnection, ProviderError } from '../types';

/**
 * ElevenLabs error bodies look like `{"detail": {"status"|"code": "...", "message": "..."}}` (FastAPI 422s carry
 * a `detail` array). The shared helper classifies by HTTP status; the code refines it where the status alone
 * says too little: a 400 `bad_prompt` from the music endpoint is a content refusal, not a bug of ours.
 */

const POLICY_CODES = new Set(['bad_prompt', 'bad_composition_plan']);
const OVERLOAD_CODES = new Set([
  'too_many_concurrent_requests',
  'system_busy',
  'rate_limit_exceeded',
  'concurrent_limit_exceeded',
]);

export function errorCode(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const detail = (JSON.parse(body) as { detail?: unknown }).detail;
    if (detail && typeof detail === 'object' && !Array.isArray(detail)) {
      const d = detail as Record<string, unknown>;
      const code = typeof d.code === 'string' ? d.code : d.status;
      return typeof code === 'string' ? code : undefined;
    }
  } catch {
    /* not JSON */
  }
  return undefined;
}

export function refineError(err: unknown, body: string | undefined): unknown {
  if (!(err instanceof ProviderError)) return err;
  const code = errorCode(body);
  if (code && POLICY_CODES.has(code)) return new ProviderError('content_policy', err.message, 'elevenlabs', err.upstreamStatus);
  if (code && OVERLOAD_CODES.has(code)) return new ProviderError('overloaded', err.message, 'elevenlabs', err.upstreamStatus);
  return err;
}

/** One call with `xi-api-key`; a non-2xx answer becomes a ProviderError refined by the ElevenLabs error code. */
export async function elevenlabsFetch(conn: ProviderConnection, req: UpstreamRequest): Promise<Response> {
  let errorBody: string | undefined;
  const peeking: ProviderConnection = {
    ...conn,
    fetch: async (input, init) => {
      const res = await conn.fetch(input, init);
      if (!res.ok) errorBody = await res.clone().text().catch(() => undefined);
      return res;
    },
  };
  // The official base URL has no path, so a configured one may arrive as `https://host/`: join without `//`.
  const path = /^https?:\/\//.test(req.path) ? req.path : conn.baseUrl.replace(/\/+$/, '') + req.path;
  try {
    return await upstreamFetch('elevenlabs', peeking, { ...req, path, headers: { ...req.headers, 'xi-api-key': conn.apiKey } });
  } catch (err) {
    throw refineError(err, errorBody);
  }
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
