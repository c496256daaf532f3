// The catalog's own departures from the price rule (price-rule.ts), each with its reason. The operator's overrides
// (`catalog:price`) win over these. `npm run cli -- catalog:prices` shows which of them sell below cost.
import type { PriceOverride } from './price-rule';

const SPEC_TABLE = 'api-spec.md fixes this price (its per-category table)';
const STARTER_ONE_TOKEN =
  'decisions.md: the 7 Starter text models cost 1 token for an ordinary request (1000 tokens each way); ' +
  'the vendor rates are scaled down to fit';

/** Overrides by catalog slug (test/catalog/price-rule.test.ts checks each names a catalog model). */
export const HOUSE_PRICES: Readonly<Record<string, PriceOverride>> = {
  // $1 / $5 per million gives 1.2 tokens for an ordinary request.
  'claude-haiku-4-5': { factor: 0.8, reason: STARTER_ONE_TOKEN },
  // $1.50 / $9 per million gives 2.1 tokens for an ordinary request.
  'gemini-3.5-flash': { factor: 0.45, reason: STARTER_ONE_TOKEN },
  'gpt-transcribe': { tokens: 2, reason: SPEC_TABLE },
  'gpt-4o-transcribe': { tokens: 2, reason: SPEC_TABLE },
  'vendor-scribe-v2': { tokens: 2, reason: SPEC_TABLE },
  musicgen: { tokens: 9, reason: SPEC_TABLE },
  'vendor-music': { tokens: 58, reason: SPEC_TABLE },
  upscale: { tokens: 1, reason: SPEC_TABLE },
  'face-swap': { tokens: 1, reason: SPEC_TABLE },
  'remove-bg': { tokens: 1, reason: SPEC_TABLE },
  'style-transfer': { tokens: 1, reason: SPEC_TABLE },
  colorize: { tokens: 1, reason: SPEC_TABLE },
  inpaint: { tokens: 3, reason: SPEC_TABLE },
  'text-ocr': { tokens: 1, reason: SPEC_TABLE },
};
