import crypto from 'node:crypto';
import type { ProviderAdapter } from './adapter';
import { ProviderUnavailableError } from './errors';
import { ProvidersConfig } from './settings';
import { createVendorFetch } from './transport/vendor-fetch';
import { ProviderConnection, ProviderName } from './types';

const CONNECT_TIMEOUT_MS = 10_000;
/** Result downloads (videos) are the largest vendor bodies we hold in memory. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export interface ConnectionInfo {
  provider: ProviderName;
  mode: 'live' | 'sandbox' | 'unavailable';
  /** The first connection's base URL. */
  baseUrl?: string;
  /** How many connections the vendor has (one for the sandbox, none when unavailable). */
  connections: number;
}

/** One of a vendor's connections, as its pool holds it. */
export interface PooledConnection {
  provider: ProviderName;
  /** Its place in `<VENDOR>_API_KEY` (0 is the first key): metrics and the health query name it so. */
  index: number;
  /**
   * Names the connection across restarts and reorderings (a hash of its base URL and key, never the key): a job a
   * vendor accepted on it is polled on it again.
   */
  id: string;
  /** How many connections the vendor has. */
  of: number;
  weight: number;
  conn: ProviderConnection;
}

function connectionId(baseUrl: string, apiKey: string): string {
  return crypto.createHash('sha256').update(`${baseUrl}\n${apiKey}`).digest('hex').slice(0, 16);
}

/**
 * Where each provider's adapter sends its requests: one connection per `<P>_API_KEY` entry (at `<P>_BASE_URL`, or
 * the vendor's default), or the built-in sandbox upstream (`sandboxMount`, given only where sandboxing is allowed:
 * always outside production) when the provider has no credentials.
 */
export class ProviderConnections {
  private readonly pools = new Map<ProviderName, readonly PooledConnection[]>();

  /**
   * @param fetchImpl one fetch for every vendor (tests); by default each vendor gets a vendor client of its own, so
   * its pool of `config.poolSize` connections (and the line in front of it) is its alone, sandboxed or not.
   */
  constructor(
    private readonly config: Pick<ProvidersConfig, 'vendors' | 'timeoutMs'> & Partial<Pick<ProvidersConfig, 'poolSize'>>,
    private readonly vendors: Readonly<Record<ProviderName, Pick<ProviderAdapter, 'defaultBaseUrl' | 'faults'>>>,
    private readonly sandboxMount?: (provider: ProviderName) => string,
    private readonly fetchImpl?: typeof fetch,
  ) {}

  private fetchFor(): typeof fetch {
    return (
      this.fetchImpl ??
      createVendorFetch({
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        headersTimeoutMs: this.config.timeoutMs,
        bodyIdleTimeoutMs: this.config.timeoutMs,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        connections: this.config.poolSize,
      })
    );
  }

  info(provider: ProviderName): ConnectionInfo {
    const pool = this.poolOf(provider);
    if (pool.length === 0) return { provider, mode: 'unavailable', connections: 0 };
    return { provider, mode: pool[0]!.conn.sandbox ? 'sandbox' : 'live', baseUrl: pool[0]!.conn.baseUrl, connections: pool.length };
  }

  /** Every vendor, configured or not. */
  providers(): ProviderName[] {
    return Object.keys(this.vendors) as ProviderName[];
  }

  /** The vendor's connections, in the order its configuration lists them. @throws ProviderUnavailableError when it has none. */
  pool(provider: ProviderName, modelSlug: string): readonly PooledConnection[] {
    const pool = this.poolOf(provider);
    if (pool.length === 0) {
      throw new ProviderUnavailableError(
        provider,
        modelSlug,
        `The model ${modelSlug} is unavailable: its provider (${provider}) is not configured on this server. Please switch to another model.`,
      );
    }
    return pool;
  }

  /** The vendor's first connection (reads that need no failover: model lists). @throws ProviderUnavailableError */
  connection(provider: ProviderName, modelSlug: string): ProviderConnection {
    return this.pool(provider, modelSlug)[0]!.conn;
  }

  private poolOf(provider: ProviderName): readonly PooledConnection[] {
    let pool = this.pools.get(provider);
    if (!pool) this.pools.set(provider, (pool = this.build(provider)));
    return pool;
  }

  private build(provider: ProviderName): PooledConnection[] {
    const vendor = this.vendors[provider];
    const base = { sandbox: false, fetch: this.fetchFor(), timeoutMs: this.config.timeoutMs, faults: vendor.faults };
    // A vendor that runs in this process (its base URL is `local://`) needs no credentials.
    if (vendor.defaultBaseUrl.startsWith('local:')) {
      return [{ provider, index: 0, of: 1, id: 'local', weight: 1, conn: { ...base, apiKey: '', baseUrl: vendor.defaultBaseUrl } }];
    }
    const configured = this.config.vendors[provider];
    if (configured.length > 0) {
      return configured.map((c, index) => {
        const baseUrl = c.baseUrl ?? vendor.defaultBaseUrl;
        const id = connectionId(baseUrl, c.apiKey);
        return { provider, index, of: configured.length, id, weight: c.weight, conn: { ...base, apiKey: c.apiKey, baseUrl } };
      });
    }
    if (!this.sandboxMount) return [];
    // The vendor's own path prefix (e.g. `/v1`) is kept under the sandbox mount.
    const baseUrl = this.sandboxMount(provider) + new URL(vendor.defaultBaseUrl).pathname.replace(/\/+$/, '');
    return [{ provider, index: 0, of: 1, id: 'sandbox', weight: 1, conn: { ...base, apiKey: 'sandbox-key', baseUrl, sandbox: true } }];
  }
}
