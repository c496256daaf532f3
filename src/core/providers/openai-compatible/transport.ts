import { upstreamFetch, vendorErrorMessage } from '../http';
import { ProviderConnection, ProviderError, ProviderName } from '../types';

export interface BearerPost {
  provider: ProviderName;
  path: string;
  /** A plain object (sent as JSON) or FormData. */
  body: unknown;
  signal?: AbortSignal;
  refineError?: (err: ProviderError) => ProviderError;
}

/** POST with `Authorization: Bearer <key>`, as OpenAI, xAI and DeepSeek all document it. */
export async function bearerPost(conn: ProviderConnection, req: BearerPost): Promise<Response> {
  try {
    return await upstreamFetch(req.provider, conn, {
      method: 'POST',
      path: req.path,
      headers: { authorization: `Bearer ${conn.apiKey}` },
      body: req.body,
      signal: req.signal,
    });
  } catch (err) {
    if (err instanceof ProviderError && req.refineError) throw req.refineError(err);
    throw err;
  }
}

/**
 * The error for a response body that broke off while being read: our timeout, or the vendor dropping
 * the connection. A caller's own abort is rethrown as it is.
 */
export function bodyReadFailure(provider: ProviderName, err: unknown, signal?: AbortSignal): unknown {
  if (signal?.aborted || err instanceof ProviderError) return err;
  const name = (err as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new ProviderError('timeout', `${provider} did not finish answering in time`, provider);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError('upstream', `${provider} dropped the connection mid-response: ${message}`, provider);
}

/** Reads a JSON body; a cut-off or non-JSON body becomes a ProviderError. Leading blank lines are fine. */
export async function readJsonBody(provider: ProviderName, res: Response, signal?: AbortSignal): Promise<unknown> {
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw bodyReadFailure(provider, err, signal);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError('upstream', `${provider} answered with a body that is not JSON`, provider, res.status);
  }
}

/** A failure reported inside a 200 body (`{"error": {...}}`), classified by its wording. */
export function inBodyError(provider: ProviderName, error: unknown): ProviderError {
  const message = vendorErrorMessage({ error }, `${provider} reported an error`);
  if (/overload|rate.?limit|capacity|busy/i.test(message)) return new ProviderError('overloaded', message, provider);
  if (/content.?policy|safety|moderat|flagged/i.test(message)) return new ProviderError('content_policy', message, provider);
  return new ProviderError('upstream', message, provider);
}
