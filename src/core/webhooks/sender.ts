import { Agent, request } from 'undici';
import { FetchFailedError, UnsafeUrlError } from '../net/errors';
import { HostResolver, pinnedLookup, resolveAndCheck, systemResolver } from '../net/safe-fetch';

export interface SendOptions {
  timeoutMs: number;
  /** Skip the public-address check (WEBHOOK_ALLOW_PRIVATE=1). */
  allowPrivate: boolean;
  resolve?: HostResolver;
}

export interface SendResult {
  /** 2xx within the time limit. */
  ok: boolean;
  statusCode: number | null;
  /** The first KEPT_BYTES of the answer, as text. */
  responseBody: string | null;
  error: string | null;
  latencyMs: number;
  /** The receiver's Retry-After (delta-seconds or an HTTP date), in ms from now; null without one. */
  retryAfterMs: number | null;
}

/** `Retry-After` as RFC 9110 defines it: delay-seconds or an HTTP-date. Nonsense is ignored. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export const KEPT_BYTES = 1024;

async function firstBytes(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= KEPT_BYTES) break;
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, KEPT_BYTES).toString('utf8');
}

/**
 * POSTs one signed webhook. The target passes the SSRF policy at send time: http(s) only, every resolved address
 * public (unless allowed), the connection pinned to the checked addresses, and a redirect is an answer like any
 * other non-2xx (never followed). Never throws: the outcome, whatever it is, is the result.
 */
export async function sendWebhook(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const signal = AbortSignal.timeout(options.timeoutMs);
  let agent: Agent | undefined;
  try {
    const target = new URL(url);
    if (target.protocol !== 'https:' && target.protocol !== 'http:')
      throw new UnsafeUrlError('scheme_not_allowed', `scheme ${target.protocol} is not allowed`);
    const addresses = await resolveAndCheck(target, options.resolve ?? systemResolver, options.allowPrivate);
    // One connection per attempt, pinned to the addresses just checked (no pooled socket from another resolution).
    agent = new Agent({ connect: { lookup: pinnedLookup(addresses) }, pipelining: 0, connections: 1 });
    const res = await request(target, {
      method: 'POST',
      dispatcher: agent,
      signal,
      headers: { 'content-type': 'application/json', 'user-agent': 'nebula-gen-webhooks/1', ...headers },
      body,
    });
    const responseBody = await firstBytes(res.body);
    const ok = res.statusCode >= 200 && res.statusCode <= 299;
    return {
      ok,
      statusCode: res.statusCode,
      responseBody,
      error: ok ? null : `HTTP ${res.statusCode}`,
      latencyMs: elapsed(),
      retryAfterMs: ok ? null : parseRetryAfter(res.headers['retry-after']),
    };
  } catch (err) {
    let error: string;
    if (signal.aborted) error = `no answer within ${options.timeoutMs} ms`;
    else if (err instanceof UnsafeUrlError) error = `refused: ${err.message}`;
    else if (err instanceof FetchFailedError) error = err.message;
    else error = `unreachable: ${(err as Error).message}`;
    return { ok: false, statusCode: null, responseBody: null, error: error.slice(0, 500), latencyMs: elapsed(), retryAfterMs: null };
  } finally {
    agent?.destroy().catch(() => undefined);
  }
}
