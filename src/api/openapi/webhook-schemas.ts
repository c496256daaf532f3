// Webhook endpoints, delivery attempts and the event bodies, as OpenAPI components.
import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../../core/webhooks/events';
import { components } from './components';

function component<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  components.add(schema, description ? { id, description } : { id });
  return schema;
}

const isoDate = z.string().describe('ISO 8601 UTC timestamp');
const eventName = z.enum(WEBHOOK_EVENTS);

export const CreatedWebhookSchema = component(
  'CreatedWebhook',
  z.object({
    id: z.number().int(),
    url: z.string(),
    events: z.array(eventName),
    secret: z.string().describe('`whsec_` + base64 of the signing key: shown only here'),
    created_at: isoDate,
  }),
);

export const WebhookSchema = component(
  'Webhook',
  z.object({
    id: z.number().int(),
    url: z.string(),
    events: z.array(eventName),
    status: z
      .enum(['active', 'failing', 'disabled'])
      .describe(
        '`failing` once a delivery exhausted its retries (a later success makes it active); `disabled` once the receiver answered 410 Gone: it gets no further events or attempts (delete it and add it again to resume)',
      ),
    failing_since: isoDate.nullable(),
    created_at: isoDate,
  }),
);

export const WebhookListSchema = component('WebhookList', z.object({ webhooks: z.array(WebhookSchema) }));

export const WebhookAttemptSchema = component(
  'WebhookAttempt',
  z.object({
    id: z.number().int(),
    webhook_id: z.string().describe('the `webhook-id` header: the same on every retry of one event'),
    event: z.string(),
    attempt: z.number().int().describe('1 for the first try'),
    success: z.boolean().describe('a 2xx within 10 s'),
    status_code: z.number().int().nullable().describe('null when no answer came (refused, unreachable, timeout)'),
    error: z.string().nullable(),
    latency_ms: z.number().int(),
    response_body: z.string().nullable().describe('the first 1 KB of the answer'),
    attempted_at: isoDate,
  }),
);

export const WebhookAttemptListSchema = component('WebhookAttemptList', z.object({ deliveries: z.array(WebhookAttemptSchema) }));

export const QueuedWebhookEventSchema = component(
  'QueuedWebhookEvent',
  z.object({ webhook_id: z.string(), event: z.literal('webhook.test'), created_at: isoDate }),
);

export const GenerationEventSchema = component(
  'GenerationEvent',
  z.object({
    event: z.enum(['generation.completed', 'generation.failed']),
    generation_id: z.number().int(),
    status: z.enum(['completed', 'failed']),
    model_slug: z.string(),
    result_url: z.string().nullable(),
    result_text: z.string().nullable().describe('text models and transcriptions (first 10 000 characters)'),
    tokens_spent: z.number().int().describe('0 for failed generations (they are not charged)'),
    error: z.string().nullable().describe('generation.failed: why'),
    created_at: isoDate,
  }),
  'Body of generation.completed and generation.failed, for every generation of the account (API, /v1, bot)',
);

export const BalanceLowEventSchema = component(
  'BalanceLowEvent',
  z.object({
    event: z.literal('balance.low'),
    token_balance: z.number().int(),
    plan_tokens: z.number().int(),
    bonus_tokens: z.number().int(),
    plan: z.string(),
    plan_allowance: z.number().int(),
    threshold: z.number().int().describe('10 % of the plan allowance'),
    created_at: isoDate,
  }),
  'The balance fell below 10 % of the plan allowance; sent at most once per billing period',
);

export const PaymentSucceededEventSchema = component(
  'PaymentSucceededEvent',
  z.object({
    event: z.literal('payment.succeeded'),
    order_id: z.number().int(),
    article_id: z.string(),
    kind: z.enum(['tokens', 'plan']),
    amount: z.number().describe('major units (RUB) or Telegram Stars'),
    currency: z.string().describe('`RUB`, or `XTR` for Stars'),
    tokens: z.number().int().nullable().describe('bonus tokens granted (token packages)'),
    plan: z.string().nullable().describe('the plan bought (plan articles)'),
    provider: z.string(),
    renewal: z.boolean().describe('a subscription renewal'),
    created_at: isoDate,
  }),
  'A payment of the account was paid and fulfilled',
);

export const PaymentRefundedEventSchema = component(
  'PaymentRefundedEvent',
  z.object({
    event: z.literal('payment.refunded'),
    order_id: z.number().int(),
    article_id: z.string(),
    kind: z.enum(['tokens', 'plan']),
    amount: z.number().describe('major units (RUB) or Telegram Stars given back'),
    currency: z.string().describe('`RUB`, or `XTR` for Stars'),
    provider: z.string(),
    tokens_taken: z.number().int().describe('tokens taken back from the balance'),
    tokens_spent: z.number().int().describe('tokens of the order already spent (kept off the reversal)'),
    created_at: isoDate,
  }),
  'A payment of the account was refunded (the money went back)',
);

export const TestEventSchema = component(
  'WebhookTestEvent',
  z.object({ event: z.literal('webhook.test'), webhook_endpoint_id: z.number().int(), message: z.string(), created_at: isoDate }),
);

/** Event name -> body, for the `webhooks` section of the OpenAPI document. */
export const WEBHOOK_EVENT_BODIES: Record<string, { summary: string; schema: z.ZodType }> = {
  'generation.completed': { summary: 'A generation of the account completed', schema: GenerationEventSchema },
  'generation.failed': { summary: 'A generation of the account failed (not charged)', schema: GenerationEventSchema },
  'balance.low': { summary: 'The balance fell below 10 % of the plan allowance (once per period)', schema: BalanceLowEventSchema },
  'payment.succeeded': { summary: 'A payment of the account was fulfilled', schema: PaymentSucceededEventSchema },
  'payment.refunded': { summary: 'A payment of the account was refunded', schema: PaymentRefundedEventSchema },
  'webhook.test': { summary: 'Sent by POST /api/v2/webhooks/{id}/test', schema: TestEventSchema },
};
