import { ANTHROPIC_PRICES, ANTHROPIC_TOOL_PRICES } from './anthropic/prices';
import { BFL_PRICES } from './bfl/prices';
import { DEEPSEEK_PRICES } from './deepseek/prices';
import { ELEVENLABS_PRICES } from './elevenlabs/prices';
import { GOOGLE_PRICES } from './google/prices';
import { LOCAL_PRICES } from './local/prices';
import { OPENAI_PRICES, OPENAI_TOOL_PRICES } from './openai/prices';
import type { HostedToolPriceList, ToolUsePrice, VendorPrice, VendorPriceList } from './prices';
import type { HostedTool } from './types';
import { REPLICATE_PRICES } from './replicate/prices';
import type { ProviderName } from './types';
import { XAI_PRICES } from './xai/prices';

/** Every vendor's price list, from its room. */
export const VENDOR_PRICE_LISTS: Readonly<Record<ProviderName, VendorPriceList>> = {
  openai: OPENAI_PRICES,
  anthropic: ANTHROPIC_PRICES,
  google: GOOGLE_PRICES,
  xai: XAI_PRICES,
  deepseek: DEEPSEEK_PRICES,
  bfl: BFL_PRICES,
  replicate: REPLICATE_PRICES,
  elevenlabs: ELEVENLABS_PRICES,
  local: LOCAL_PRICES,
};

/** The vendor's list price of one of its models. @throws Error when the vendor's list has no row for it */
export function vendorPrice(provider: ProviderName, upstreamId: string): VendorPrice {
  const price = VENDOR_PRICE_LISTS[provider][upstreamId];
  if (!price) throw new Error(`no list price for ${provider} model ${upstreamId}: add it to providers/${provider}/prices.ts`);
  return price;
}

/** Every vendor's prices of the tools it runs itself, by tool. */
export const VENDOR_TOOL_PRICES: Readonly<Partial<Record<ProviderName, HostedToolPriceList>>> = {
  openai: OPENAI_TOOL_PRICES,
  anthropic: ANTHROPIC_TOOL_PRICES,
};

/** The vendor's price of one use of a tool it hosts; undefined where it lists none. */
export function toolUsePrice(provider: ProviderName, tool: HostedTool): ToolUsePrice | undefined {
  return VENDOR_TOOL_PRICES[provider]?.[tool];
}
