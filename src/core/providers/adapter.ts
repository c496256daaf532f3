import type { VendorPriceList } from './prices';
import type { ChatCapability, FaultTable, HostedTool, MediaCapability, MediaCategory, ProviderConnection, ProviderName } from './types';

export type { HostedTool } from './types';

/** What a vendor lists: each model id, with the shutdown date it announced (OpenAI's `shutdown_date`) or null. */
export type VendorModels = ReadonlyMap<string, { shutdownAt: string | null }>;

/** One model as the vendor's "retrieve a model" describes it: its own id (a dated snapshot for an alias), its shutdown. */
export interface VendorModel {
  id: string;
  shutdownAt: string | null;
}

/** The documented model-list protocols; the sandbox fakes serve each one (`src/sandbox/model-lists.ts`). */
export type ModelListProtocol = 'openai' | 'anthropic' | 'gemini' | 'elevenlabs' | 'replicate';

/** How catalog:check asks a vendor about its models, as far as the vendor documents it. */
export interface ModelListing {
  protocol: ModelListProtocol;
  /** Where the list lives under the vendor's base URL (Replicate: the prefix of its per-model lookup). */
  path: string;
  /** The vendor's whole list, read over `conn`; null for a vendor asked one model at a time (Replicate). */
  list: ((conn: ProviderConnection) => Promise<VendorModels>) | null;
  /** Its documented "retrieve a model" (`path/{id}`): the model, or null when the vendor answers not found; null when it documents none. */
  retrieve: ((conn: ProviderConnection, id: string) => Promise<VendorModel | null>) | null;
  /** The catalog categories the list documents, when it covers only some (ElevenLabs lists its speech models). */
  categories?: readonly (MediaCategory | 'text')[];
}

/** What the vendor's adapter can do (test/providers/registry.test.ts holds it against the adapter and the catalog). */
export interface VendorCapabilities {
  /** Chat models (the adapter's `chat`). */
  chat: boolean;
  /** The media categories its `media` serves. */
  media: readonly MediaCategory[];
  /** Hosted tools the adapter passes on to the vendor. */
  hostedTools: readonly HostedTool[];
  /** Prompt caching: `explicit` (the client marks what to cache), `automatic` (the vendor caches prefixes), or none. */
  caching: 'explicit' | 'automatic' | 'none';
  /** Some of its models reason under a control the adapter maps (effort, thinking budget). */
  reasoning: boolean;
}

/**
 * A vendor, declared once in its folder (`<vendor>/index.ts`) and listed once in `registry.ts`: everything else
 * (the provider names, the connections, the catalog check, the sandbox's model lists) is derived from these.
 */
export interface ProviderAdapter<N extends string = ProviderName> {
  /** `<NAME>_API_KEY`, `<NAME>_BASE_URL`, the catalog's `provider`, the sandbox mount. */
  name: N;
  /** Official base URL used when `<P>_BASE_URL` is not set. */
  defaultBaseUrl: string;
  /** The vendor's documented errors mapped onto our kinds (`<vendor>/faults.ts`). */
  faults: FaultTable;
  /** How to ask the vendor about its models; null when it publishes no list (BFL, the in-process tools). */
  models: ModelListing | null;
  /** Its list prices in USD, by its own model ids, each with its page and day (`<vendor>/prices.ts`). */
  prices: VendorPriceList;
  capabilities: VendorCapabilities;
  chat?: ChatCapability;
  media?: MediaCapability;
}
