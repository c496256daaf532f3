import { FetchFailedError, UnsafeUrlError } from '../net/errors';
import { HostResolver, resolveAndCheck, systemResolver } from '../net/safe-fetch';
import { WebhookInputError } from './errors';

export interface TargetPolicy {
  /** Production: only https targets. */
  requireHttps: boolean;
  /** WEBHOOK_ALLOW_PRIVATE=1: private and loopback targets allowed (development and tests). */
  allowPrivate: boolean;
  resolve?: HostResolver;
}

const MAX_URL_LENGTH = 2000;
const RESOLVE_BUDGET_MS = 3000;

function parseTarget(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookInputError('invalid_url', 'url', 'url is not a valid absolute URL');
  }
  if (raw.length > MAX_URL_LENGTH) throw new WebhookInputError('invalid_url', 'url', `url is longer than ${MAX_URL_LENGTH} characters`);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WebhookInputError('invalid_url', 'url', 'url must be http(s)');
  if (policy.requireHttps && url.protocol !== 'https:') throw new WebhookInputError('https_required', 'url', 'url must use https');
  if (url.username || url.password) throw new WebhookInputError('invalid_url', 'url', 'url must not carry credentials');
  if (url.hash) throw new WebhookInputError('invalid_url', 'url', 'url must not have a fragment');
  return url;
}

function isLocalName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/**
 * Checks a URL given at registration: http(s) (https in production), no credentials, and, unless private targets
 * are allowed, no private or loopback address (literal, `localhost`, or what the name resolves to now). A name
 * that does not resolve yet is accepted: every delivery checks the addresses again before it connects.
 */
export async function checkWebhookTarget(raw: string, policy: TargetPolicy): Promise<URL> {
  const url = parseTarget(raw, policy);
  if (policy.allowPrivate) return url;
  if (isLocalName(url.hostname)) throw new WebhookInputError('forbidden_address', 'url', `${url.hostname} is a loopback name`);
  const resolve = policy.resolve ?? systemResolver;
  const budget = (hostname: string) =>
    Promise.race([
      resolve(hostname),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('resolution timed out')), RESOLVE_BUDGET_MS).unref()),
    ]);
  try {
    await resolveAndCheck(url, budget, false);
  } catch (err) {
    if (err instanceof UnsafeUrlError)
      throw new WebhookInputError('forbidden_address', 'url', `url is not a public address: ${err.message}`);
    if (!(err instanceof FetchFailedError)) throw err;
  }
  return url;
}
