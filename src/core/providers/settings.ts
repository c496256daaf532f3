import { ProviderName } from './types';

/** One way to reach a vendor: a credential, its base URL (else the vendor's default), its share of the requests. */
export interface ConnectionSettings {
  apiKey: string;
  baseUrl?: string;
  /** Relative share of the requests that start on this connection (`<VENDOR>_WEIGHTS`; 1 each by default). */
  weight: number;
}

/** How this process reaches the vendors (`config.providers`): what the core needs of the configuration, no more. */
export interface ProvidersConfig {
  /**
   * Each vendor's connections, in the order `<VENDOR>_API_KEY` lists them (comma-separated, with `<VENDOR>_BASE_URL`
   * one per key or one for all); none means the sandbox (outside production) or unavailable.
   */
  vendors: Record<ProviderName, readonly ConnectionSettings[]>;
  /** A vendor that sends no headers, or whose body stalls, for this long fails (UPSTREAM_TIMEOUT_MS). */
  timeoutMs: number;
  /**
   * HTTP connections per vendor in this process (VENDOR_POOL_SIZE): a call beyond them waits for one within its
   * UPSTREAM_TIMEOUT_MS, then is refused as busy (503 with Retry-After).
   */
  poolSize: number;
  /** Concurrent upstream calls per provider in this process (PROVIDER_CONCURRENCY). */
  concurrency: number;
}
