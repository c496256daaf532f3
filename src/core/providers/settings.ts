import { ProviderName } from './types';

/** One vendor's credential and address: `<VENDOR>_API_KEY`, `<VENDOR>_BASE_URL`. */
export interface VendorSettings {
  apiKey?: string;
  baseUrl?: string;
}

/** How this process reaches the vendors (`config.providers`): what the core needs of the configuration, no more. */
export interface ProvidersConfig {
  vendors: Record<ProviderName, VendorSettings>;
  /** A vendor that sends no headers, or whose body stalls, for this long fails (UPSTREAM_TIMEOUT_MS). */
  timeoutMs: number;
  /** Concurrent upstream calls per provider in this process (PROVIDER_CONCURRENCY). */
  concurrency: number;
}
