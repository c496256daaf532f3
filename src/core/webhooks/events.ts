import type { GenerationEntity } from '../../db/entities';
import { resultUrl } from '../generations/result-url';
import type { LinkOrigins } from '../links/link-origins';
import type { PaymentRefundedEvent, PaymentSucceededEvent } from '../payments/ports';

/** Events an endpoint can subscribe to. `webhook.test` is sent on request only and needs no subscription. */
export const WEBHOOK_EVENTS = [
  'generation.completed',
  'generation.failed',
  'balance.low',
  'payment.succeeded',
  'payment.refunded',
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];
export const TEST_EVENT = 'webhook.test';

export function isWebhookEvent(name: string): name is WebhookEventName {
  return (WEBHOOK_EVENTS as readonly string[]).includes(name);
}

/** Bodies are flat: `event`, `created_at` and the event's own fields. */
export interface GenerationEventBody {
  event: 'generation.completed' | 'generation.failed';
  generation_id: number;
  status: 'completed' | 'failed';
  model_slug: string;
  result_url: string | null;
  /** The text answer of text models (and transcriptions); null for file results. */
  result_text: string | null;
  tokens_spent: number;
  /** generation.failed: why it failed. */
  error: string | null;
  created_at: string;
}

export interface BalanceLowEventBody {
  event: 'balance.low';
  /** Plan tokens plus bonus tokens left. */
  token_balance: number;
  plan_tokens: number;
  bonus_tokens: number;
  plan: string;
  /** The plan's allowance per period; the event fires once per period when the balance drops below 10 % of it. */
  plan_allowance: number;
  threshold: number;
  created_at: string;
}

export interface PaymentSucceededEventBody {
  event: 'payment.succeeded';
  order_id: number;
  article_id: string;
  kind: 'tokens' | 'plan';
  /** Major units (rubles) or Stars. */
  amount: number;
  currency: string;
  /** Bonus tokens granted (token packages). */
  tokens: number | null;
  /** The plan bought (plan articles). */
  plan: string | null;
  provider: string;
  /** A subscription renewal. */
  renewal: boolean;
  created_at: string;
}

export interface PaymentRefundedEventBody {
  event: 'payment.refunded';
  order_id: number;
  article_id: string;
  kind: 'tokens' | 'plan';
  /** Major units (rubles) or Stars given back. */
  amount: number;
  currency: string;
  provider: string;
  /** Tokens taken back from the balance, and those already spent (kept off the reversal). */
  tokens_taken: number;
  tokens_spent: number;
  created_at: string;
}

export interface TestEventBody {
  event: typeof TEST_EVENT;
  webhook_endpoint_id: number;
  message: string;
  created_at: string;
}

export type WebhookEventBody =
  GenerationEventBody | BalanceLowEventBody | PaymentSucceededEventBody | PaymentRefundedEventBody | TestEventBody;

const TEXT_IN_EVENT = 10_000;

export function generationEventBody(gen: GenerationEntity, links: LinkOrigins): GenerationEventBody {
  const completed = gen.status === 'completed';
  return {
    event: completed ? 'generation.completed' : 'generation.failed',
    generation_id: gen.id,
    status: completed ? 'completed' : 'failed',
    model_slug: gen.modelSlug,
    result_url: resultUrl(links, gen),
    result_text: gen.resultText ? gen.resultText.slice(0, TEXT_IN_EVENT) : null,
    tokens_spent: completed ? (gen.tokensSpent ?? 0) : 0,
    error: completed ? null : (gen.error ?? 'The generation failed'),
    created_at: (gen.completedAt ?? new Date()).toISOString(),
  };
}

export function paymentEventBody(p: PaymentSucceededEvent): PaymentSucceededEventBody {
  return {
    event: 'payment.succeeded',
    order_id: p.orderId,
    article_id: p.articleId,
    kind: p.kind,
    amount: p.amount,
    currency: p.currency,
    tokens: p.tokens,
    plan: p.plan,
    provider: p.provider,
    renewal: p.renewal,
    created_at: p.paidAt.toISOString(),
  };
}

export function refundEventBody(p: PaymentRefundedEvent): PaymentRefundedEventBody {
  return {
    event: 'payment.refunded',
    order_id: p.orderId,
    article_id: p.articleId,
    kind: p.kind,
    amount: p.amount,
    currency: p.currency,
    provider: p.provider,
    tokens_taken: p.tokensTaken,
    tokens_spent: p.tokensSpent,
    created_at: p.refundedAt.toISOString(),
  };
}
