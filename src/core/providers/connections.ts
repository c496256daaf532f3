import type { ProviderAdapter } from './adapter';
import { ProvidersConfig } from './settings';
import { createVendorFetch } from './transport/vendor-fetch';
import { ProviderConnection, ProviderName } from './types';
import { ProviderUnavailableError } from './errors';

const CONNECT_TIMEOUT_MS = 10_000;
/** Result downloads (videos) are the largest vendor bodies we hold in memory. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export interface ConnectionInfo {
  provider: ProviderName;
  mode: 'live' | 'sandbox' | 'unavailable';
  baseUrl?: string;
}

/**
 * Where each provider's adapter sends its requests: `<P>_BASE_URL` with `<P>_API_KEY`, or the built-in sandbox
 * upstream (`sandboxMount`, given only where sandboxing is allowed: always outside production) when the provider
 * has no credentials.
 */
export class ProviderConnections {
  constructor(
    private readonly config: Pick<ProvidersConfig, 'vendors' | 'timeoutMs'>,
    private readonly vendors: Readonly<Record<ProviderName, Pick<ProviderAdapter, 'defaultBaseUrl' | 'faults'>>>,
    private readonly sandboxMount?: (provider: ProviderName) => string,
    private readonly fetchImpl: typeof fetch = createVendorFetch({
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      headersTimeoutMs: config.timeoutMs,
      bodyIdleTimeoutMs: config.timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    }),
  ) {}

  info(provider: ProviderName): ConnectionInfo {
    const settings = this.config.vendors[provider];
    if (provider === 'local') return { provider, mode: 'live', baseUrl: 'local://' };
    if (settings.apiKey) return { provider, mode: 'live', baseUrl: settings.baseUrl ?? this.vendors[provider].defaultBaseUrl };
    if (this.sandboxMount) {
      return { provider, mode: 'sandbox', baseUrl: this.sandboxBase(provider) };
    }
    return { provider, mode: 'unavailable' };
  }

  private sandboxBase(provider: ProviderName): string {
    // The vendor's own path prefix (e.g. `/v1`) is kept under the sandbox mount.
    const path = new URL(this.vendors[provider].defaultBaseUrl).pathname.replace(/\/+$/, '');
    return this.sandboxMount!(provider) + path;
  }

  /** @throws ProviderUnavailableError when the provider has neither credentials nor a sandbox. */
  connection(provider: ProviderName, modelSlug: string): ProviderConnection {
    const info = this.info(provider);
    if (info.mode === 'unavailable' || !info.baseUrl) {
      throw new ProviderUnavailableError(
        provider,
        modelSlug,
        `The model ${modelSlug} is unavailable: its provider (${provider}) is not configured on this server. Please switch to another model.`,
      );
    }
    return {
      apiKey: info.mode === 'sandbox' ? 'sandbox-key' : (this.config.vendors[provider].apiKey ?? ''),
      baseUrl: info.baseUrl,
      sandbox: info.mode === 'sandbox',
      fetch: this.fetchImpl,
      timeoutMs: this.config.timeoutMs,
      faults: this.vendors[provider].faults,
    };
  }
}
