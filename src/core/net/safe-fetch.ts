import { promises as dns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { FetchFailedError, UnsafeUrlError } from './errors';
import { checkPublicAddress } from './ip-policy';

export { FetchFailedError, UnsafeUrlError } from './errors';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. Injectable so tests can simulate hostile DNS. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface SafeFetchOptions {
  /** Abort and fail once the body grows past this many bytes. */
  maxBytes: number;
  /** Budget for the whole fetch: DNS, every redirect hop and the body. */
  timeoutMs: number;
  /** Subset of `http`/`https` (with or without the trailing colon); default both. Nothing else can be enabled. */
  allowedSchemes?: string[];
  /**
   * Exact `host:port` entries (e.g. `127.0.0.1:4010`) exempt from the address check, for tests and local
   * development. Default empty.
   */
  allowPrivateHosts?: string[];
  /** Default: `dns.lookup(host, {all: true})`. */
  resolve?: HostResolver;
  signal?: AbortSignal;
  /** Extra trusted CA certificates (PEM) for https, e.g. a private PKI or a test certificate. */
  ca?: string | Buffer;
}

export interface SafeFetchResult {
  data: Buffer;
  /** Media type from `Content-Type`, lower case, without parameters; `application/octet-stream` if absent. */
  mime: string;
  /** The URL that produced the body, after redirects, without credentials. */
  finalUrl: string;
}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const SUPPORTED_SCHEMES = new Set(['http:', 'https:']);

export const systemResolver: HostResolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** `host:port` with the scheme's default port filled in, so `localhost` and `localhost:80` compare equal. */
function hostKey(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}

function normaliseAllowEntry(entry: string): string | null {
  try {
    const url = new URL(`http://${entry}`);
    return url.port ? `${url.hostname}:${url.port}` : null;
  } catch {
    return null;
  }
}

function parseAndCheckUrl(raw: string | URL, schemes: Set<string>): URL {
  let url: URL;
  try {
    // WHATWG parsing normalises odd IPv4 notations (2130706433, 0177.0.0.1, 0x7f.1) to dotted quads.
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('invalid_url', `not a valid URL: ${String(raw).slice(0, 200)}`);
  }
  if (!schemes.has(url.protocol)) {
    throw new UnsafeUrlError('scheme_not_allowed', `scheme ${url.protocol} is not allowed`);
  }
  if (!url.hostname) throw new UnsafeUrlError('invalid_url', 'URL has no host');
  // Credentials in the URL are never sent anywhere.
  url.username = '';
  url.password = '';
  url.hash = '';
  return url;
}

function bareHostname(url: URL): string {
  // IPv6 literals come back bracketed from WHATWG URL.
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Every address of the URL's host, refused (UnsafeUrlError) if any is non-public unless `exempt`. */
export async function resolveAndCheck(url: URL, resolve: HostResolver, exempt: boolean): Promise<ResolvedAddress[]> {
  const host = bareHostname(url);
  const literalFamily = isIP(host);
  let addresses: ResolvedAddress[];
  if (literalFamily === 4 || literalFamily === 6) {
    addresses = [{ address: host, family: literalFamily }];
  } else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      throw new FetchFailedError('unreachable', `cannot resolve ${host}: ${(err as Error).message}`);
    }
    if (addresses.length === 0) throw new FetchFailedError('unreachable', `${host} has no addresses`);
  }
  if (!exempt) {
    // Refuse if ANY address is non-public: a mixed answer is a classic DNS-rebinding trick.
    for (const { address } of addresses) {
      const verdict = checkPublicAddress(address);
      if (!verdict.ok) throw new UnsafeUrlError('forbidden_address', `${host} refused: ${verdict.reason}`);
    }
  }
  return addresses;
}

/** A `lookup` for net.connect that only ever answers with the addresses validated above. */
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  }) as LookupFunction;
}

type HopResult =
  { kind: 'redirect'; location: string; status: number } | { kind: 'body'; status: number; data: Buffer; contentType: string | undefined };

function requestOnce(
  url: URL,
  addresses: ResolvedAddress[],
  maxBytes: number,
  signal: AbortSignal,
  ca: string | Buffer | undefined,
): Promise<HopResult> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      {
        protocol: url.protocol,
        // Host name kept so TLS SNI, certificate checks and the Host header use it; the lookup pins the IP.
        hostname: bareHostname(url),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { accept: '*/*', 'accept-encoding': 'identity', 'user-agent': 'nebula-gen-fetch/1' },
        lookup: pinnedLookup(addresses),
        // A fresh connection per hop: no pooled socket that was opened for some other address.
        agent: false,
        signal,
        ...(ca ? { ca } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (REDIRECT_STATUSES.has(status) && location) {
          req.destroy();
          resolve({ kind: 'redirect', location, status });
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          req.destroy();
          reject(new FetchFailedError('too_large', `body of ${declared} bytes exceeds ${maxBytes}`));
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        let overflow = false;
        res.on('data', (chunk: Buffer) => {
          if (overflow) return;
          received += chunk.length;
          if (received > maxBytes) {
            // Stop reading and drop the connection: nothing past the cap is ever buffered.
            overflow = true;
            chunks.length = 0;
            req.destroy();
            reject(new FetchFailedError('too_large', `body exceeds ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          resolve({ kind: 'body', status, data: Buffer.concat(chunks, received), contentType: res.headers['content-type'] });
        });
        res.on('error', (err) => reject(err));
        res.on('close', () => {
          if (!res.complete) reject(new Error('connection closed before the body was complete'));
        });
      },
    );
    req.on('error', (err) => reject(err));
    req.end();
  });
}

function abortError(signal: AbortSignal, timeoutSignal: AbortSignal, timeoutMs: number): FetchFailedError {
  if (timeoutSignal.aborted) return new FetchFailedError('timeout', `no complete response within ${timeoutMs} ms`);
  return new FetchFailedError('aborted', `fetch aborted: ${String(signal.reason)}`);
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The one fetch for user-supplied URLs. Refuses non-http(s) schemes and any host that resolves to a
 * non-public address (checked per hop, connection pinned to the checked address), follows at most 5
 * redirects, never sends URL credentials, and caps body size and total time.
 */
export async function safeFetch(rawUrl: string | URL, options: SafeFetchOptions): Promise<SafeFetchResult> {
  const schemes = new Set(
    (options.allowedSchemes ?? ['http', 'https'])
      .map((s) => (s.endsWith(':') ? s : `${s}:`).toLowerCase())
      .filter((s) => SUPPORTED_SCHEMES.has(s)),
  );
  const exempt = new Set((options.allowPrivateHosts ?? []).map(normaliseAllowEntry).filter((e): e is string => e !== null));
  const resolve = options.resolve ?? systemResolver;
  const timeoutSignal = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeoutSignal]) : timeoutSignal;

  let url = parseAndCheckUrl(rawUrl, schemes);
  for (let hop = 0; ; hop++) {
    let result: HopResult;
    try {
      const addresses = await raceAbort(resolveAndCheck(url, resolve, exempt.has(hostKey(url))), signal);
      result = await requestOnce(url, addresses, options.maxBytes, signal, options.ca);
    } catch (err) {
      if (err instanceof UnsafeUrlError || err instanceof FetchFailedError) throw err;
      if (signal.aborted) throw abortError(signal, timeoutSignal, options.timeoutMs);
      throw new FetchFailedError('unreachable', `cannot fetch ${url.origin}: ${(err as Error).message}`);
    }
    if (result.kind === 'redirect') {
      if (hop >= MAX_REDIRECTS) {
        throw new FetchFailedError('too_many_redirects', `more than ${MAX_REDIRECTS} redirects`);
      }
      let next: URL;
      try {
        next = new URL(result.location, url);
      } catch {
        throw new FetchFailedError('unreachable', `redirect to an invalid location: ${result.location.slice(0, 200)}`);
      }
      url = parseAndCheckUrl(next, schemes);
      continue;
    }
    if (result.status < 200 || result.status > 299) {
      throw new FetchFailedError('bad_status', `${url.origin} answered HTTP ${result.status}`, result.status);
    }
    const mime = (result.contentType ?? '').split(';')[0].trim().toLowerCase() || 'application/octet-stream';
    return { data: result.data, mime, finalUrl: url.toString() };
  }
}
