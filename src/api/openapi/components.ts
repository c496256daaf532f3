// Response shapes of /api/v2 as zod schemas: the OpenAPI components, and what the tests check answers against.
import { z } from 'zod';
import { CATEGORIES, PLAN_SLUGS } from '../../core/catalog/types';
import { DOORS } from '../../core/stats/doors';

/** Schemas with an id here become `#/components/schemas/<id>` in the OpenAPI document. */
export const components = z.registry<{ id: string; description?: string }>();

function component<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  components.add(schema, description ? { id, description } : { id });
  return schema;
}

const isoDate = z.string().describe('ISO 8601 UTC timestamp');
const planSlug = z.enum(PLAN_SLUGS);

export const ErrorSchema = component(
  'Error',
  z
    .object({
      error: z.string().describe('snake_case error code'),
      message: z.string(),
      field: z.string().optional().describe('the request field at fault (validation errors)'),
      required_plan: planSlug.optional().describe('insufficient_plan: the lowest plan that allows the request'),
    })
    .catchall(z.unknown()),
  'Error body of /api/v2',
);

export const RateLimitErrorSchema = component(
  'RateLimitError',
  z.object({
    error: z.literal('rate_limit_exceeded'),
    message: z.string(),
    retry_after: z.number().int().describe('seconds until the limit resets'),
    plan: z.string(),
    limit_hour: z.number().int(),
    limit_day: z.number().int(),
  }),
  'The per-account hourly/daily request limit was reached',
);

export const IpRateLimitErrorSchema = component(
  'IpRateLimitError',
  z.object({ error: z.literal('rate_limit_exceeded'), message: z.string(), retry_after: z.number().int() }),
  'Too many sign-in attempts from one address',
);

export const PasswordSignInLimitErrorSchema = component(
  'PasswordSignInLimitError',
  z.object({ error: z.enum(['rate_limit_exceeded', 'account_locked']), message: z.string(), retry_after: z.number().int() }),
  'Too many attempts from one address (`rate_limit_exceeded`), or password sign-in with that email or phone locked after 10 failures within 15 minutes (known or not), for 15 minutes (`account_locked`; the message says for how many more minutes)',
);

export const UserSchema = component(
  'User',
  z.object({
    id: z.number().int(),
    name: z.string(),
    email: z.string().nullable(),
    messenger_username: z.string().nullable(),
    avatar_url: z.string().nullable(),
    plan: planSlug,
    plan_expires_at: isoDate.nullable(),
    token_balance: z.number().int(),
    token_limit: z.number().int(),
    tokens_used_this_period: z.number().int(),
    rate_limit_hourly: z.number().int().describe('0 means unlimited'),
    rate_limit_daily: z.number().int().describe('0 means unlimited'),
    auth_methods: z.object({ messenger: z.boolean(), identity_provider: z.boolean(), email: z.boolean() }),
    email_verified: z.boolean().describe('the email was confirmed (verification link or identity provider)'),
    is_admin: z.boolean().describe("may use the operator's console (`/api/v2/admin`)"),
  }),
);

export const BalanceSchema = component(
  'Balance',
  z.object({
    plan: planSlug,
    token_balance: z.number().int(),
    plan_tokens_remaining: z.number().int(),
    bonus_tokens: z.number().int(),
    plan_expires_at: isoDate.nullable().describe('null on the Starter plan'),
    next_refill_at: isoDate,
  }),
);

const countAndTokens = z.object({ count: z.number().int(), tokens: z.number().int() });
export const StatsSchema = component(
  'Stats',
  z.object({
    total_generations: z.number().int().describe('completed generations since the account was created'),
    tokens_spent_total: z.number().int(),
    breakdown: z.object({
      text: countAndTokens,
      image: countAndTokens,
      video: countAndTokens,
      audio: countAndTokens,
      tools: countAndTokens,
    }),
    recent_30d: z.object({ generations: z.number().int(), tokens_spent: z.number().int() }),
  }),
);

export const SettingsSchema = component(
  'Settings',
  z.object({
    language: z.enum(['en', 'ru']),
    image_format: z.enum(['webp', 'png', 'jpeg']),
    notifications_enabled: z.boolean(),
    default_image_size: z.string().describe('read-only'),
  }),
);

export const GenerationSchema = component(
  'Generation',
  z.object({
    id: z.number().int(),
    status: z.enum(['pending', 'completed', 'failed']),
    model_slug: z.string(),
    category: z.enum(CATEGORIES),
    result_url: z.string().nullable(),
    result_text: z.string().nullable(),
    error: z.string().nullable(),
    tokens_spent: z.number().int(),
    processing_ms: z.number().int().nullable(),
    seed: z.number().int().optional(),
    result_metadata: z.record(z.string(), z.unknown()).optional(),
    warnings: z
      .array(
        z.object({
          type: z
            .string()
            .describe(
              '`unsupported-setting` (an option the model does not take, left out), `model-replaced` (the requested model is retired; its replacement ran), or `note`',
            ),
          setting: z.string().optional().describe('the API field, for `unsupported-setting`'),
          requested: z.string().optional().describe('the retired model the request named, for `model-replaced`'),
          model: z.string().optional().describe('the replacement that ran, for `model-replaced`'),
          message: z.string(),
        }),
      )
      .optional()
      .describe('what was done differently from the request, e.g. {type: "unsupported-setting", setting: "seed"}'),
    eta_seconds: z.number().int().optional().describe('present on pending results'),
    created_at: isoDate,
    completed_at: isoDate.nullable(),
    type: z.literal('audio').optional(),
    duration_seconds: z.number().int().optional(),
    sandbox: z.boolean().optional().describe('true when produced by the built-in sandbox upstream'),
    deleted_at: isoDate.optional().describe('when its owner deleted it (DELETE /api/v2/generate/{id}): result, text and prompt are gone'),
    model: z.string().optional().describe('music results: alias of model_slug'),
    output_url: z.string().nullable().optional().describe('music results: alias of result_url'),
    tokens_used: z.number().int().optional().describe('music results: alias of tokens_spent'),
  }),
);

export const ScheduleSchema = component(
  'Schedule',
  z.object({
    id: z.number().int(),
    name: z.string(),
    request: z.record(z.string(), z.unknown()).describe('the POST /api/v2/generate body run each time'),
    interval_minutes: z.number().int(),
    enabled: z.boolean(),
    next_run_at: isoDate,
    last_run_at: isoDate.nullable(),
    last_generation_id: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: isoDate,
    api_key_id: z
      .number()
      .int()
      .nullable()
      .describe('the API key it was created with and runs as (its budget, models and expiry apply; deleting the key deletes it)'),
  }),
);

export const ScheduleListSchema = component('ScheduleList', z.object({ schedules: z.array(ScheduleSchema) }));

export const HistoryEntrySchema = component(
  'HistoryEntry',
  GenerationSchema.extend({
    door: z.enum(DOORS).describe('where the request came in: web (a dashboard session), api (an API key), bot or schedule'),
    api_key_id: z.number().int().nullable().describe('the API key it was made with (the id stays after the key is deleted)'),
    prompt: z
      .string()
      .nullable()
      .optional()
      .describe('what was asked: the prompt, or a chat’s last message (null once deleted, or for a tool without one)'),
    usage: z
      .object({
        input_tokens: z.number().int().describe('model tokens read, cached ones included'),
        output_tokens: z.number().int().describe('model tokens written, reasoning included'),
        cached_tokens: z.number().int().describe('of input_tokens, those read from the vendor’s prompt cache'),
      })
      .nullable()
      .optional()
      .describe('text models: the model’s own token counts (tokens_spent is what was charged, in tkn)'),
  }),
);

export const RefusalSchema = component(
  'Refusal',
  z.object({
    id: z.number().int(),
    created_at: isoDate,
    last_at: isoDate.describe('the last of `count` identical refusals'),
    count: z.number().int(),
    door: z.enum(['web', 'api', 'bot']),
    api_key_id: z.number().int().nullable(),
    route: z.string().describe('method and path, e.g. `POST /v1/chat/completions`'),
    model_slug: z.string().nullable().describe('the model the call asked for, when its body named one'),
    status: z.number().int().describe('402, 403 or 429'),
    error: z.string().describe('the error code answered'),
    message: z.string(),
  }),
);

export const RefusalPageSchema = component(
  'RefusalPage',
  z.object({
    items: z.array(RefusalSchema),
    next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  }),
);

export const HistoryPageSchema = component(
  'HistoryPage',
  z.object({
    items: z.array(HistoryEntrySchema),
    next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  }),
);

export const ModelSchema = component(
  'Model',
  z.object({
    slug: z.string(),
    name: z.string(),
    category: z.enum(CATEGORIES),
    provider: z.string(),
    token_cost: z.number().int(),
    min_token_cost: z.number().int(),
    max_token_cost: z.number().int(),
    min_plan: planSlug,
    min_plan_slug: planSlug.nullable().describe('null means Starter tier'),
    description_en: z.string(),
    supports_streaming: z.boolean(),
    config: z.record(z.string(), z.unknown()),
    upstream_id: z.string().describe("the vendor's id of the model"),
    deprecated_at: z.string().nullable().describe('ISO date the vendor deprecated the model; null when it is not deprecated'),
    shutdown_at: z.string().nullable().describe('ISO date the vendor shuts the model down; null when none is announced'),
    replacement: z
      .string()
      .nullable()
      .describe(
        'the catalog slug that serves requests for the model once it is retired (past shutdown_at, or gone from the vendor), or null',
      ),
    price_per_million_tokens: z
      .object({
        input: z.number().describe('tokens per million input (prompt) tokens'),
        cached_input: z.number().describe('tokens per million input tokens read from the vendor’s prompt cache'),
        output: z.number().describe('tokens per million output tokens, reasoning included'),
      })
      .optional()
      .describe(
        'text models: the price in tokens (our credit) per million of the model’s own tokens; a request costs at least min_token_cost',
      ),
  }),
);

export const PlanSchema = component(
  'Plan',
  z.object({
    slug: planSlug,
    name: z.string(),
    level: z.number().int(),
    monthly_tokens: z.number().int().describe('tokens put back at the start of every 30-day period (not carried over)'),
    one_time_tokens: z.number().int().describe('bonus tokens granted once, at sign-up (Starter: 50; they never expire)'),
    rate_limit_hourly: z.number().int().describe('0 means unlimited'),
    rate_limit_daily: z.number().int().describe('0 means unlimited'),
    retention_days: z.number().int().nullable().describe('how long result files are kept; null: for good'),
    models: z.number().int().describe('catalog models in service that the plan may use'),
    api_keys: z.boolean().describe('API keys work on this plan (VIP and higher)'),
    period_days: z.number().int().describe('length of a paid period'),
  }),
);

export const PlanListSchema = component('PlanList', z.object({ plans: z.array(PlanSchema) }));

export const ModelListSchema = component('ModelList', z.object({ models: z.array(ModelSchema), total: z.number().int() }));

export const AvgTimeSchema = component(
  'ModelAverageTime',
  z.object({
    model_slug: z.string(),
    avg_time_ms: z.number().int(),
    samples: z.number().int().describe('0 when no generation finished recently: the catalog estimate is shown'),
  }),
);

export const PriceQuoteSchema = component(
  'PriceQuote',
  z.object({
    model_slug: z.string(),
    tokens: z.number().int().describe('what generate would reserve for exactly this request'),
    min_token_cost: z.number().int(),
    max_token_cost: z.number().int(),
  }),
);

const apiKeyFields = {
  id: z.number().int(),
  name: z.string(),
  masked_key: z.string(),
  created_at: isoDate,
  last_used_at: isoDate.nullable(),
  token_budget: z.number().int().nullable().describe('tokens the key may spend per budget_period; null: no budget of its own'),
  budget_period: z.enum(['day', 'month', 'total']).describe('day and month start at 00:00 UTC'),
  spent: z.number().int().describe('tokens held or charged with this key in its current budget period'),
  models: z.array(z.string()).nullable().describe('the model slugs the key may use; null: every model of the plan'),
  expires_at: isoDate.nullable(),
  expired: z.boolean(),
};

export const CreatedApiKeySchema = component(
  'CreatedApiKey',
  z.object({ ...apiKeyFields, key: z.string().describe('the full key: shown only here') }),
);

export const ApiKeySchema = component('ApiKey', z.object(apiKeyFields));

export const ApiKeyListSchema = component('ApiKeyList', z.object({ keys: z.array(ApiKeySchema) }));

export const AssistantSchema = component(
  'Assistant',
  z.object({ id: z.number().int(), name: z.string(), description: z.string(), model_slug: z.string(), is_public: z.boolean() }),
);

export const OwnAssistantSchema = component(
  'OwnAssistant',
  AssistantSchema.extend({ system_prompt: z.string().describe('visible to the owner only') }),
);

const sessionUser = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string().nullable(),
  plan: planSlug,
  token_balance: z.number().int(),
  is_admin: z.boolean().describe('may use the operator’s console (the dashboard shows its Admin section)'),
});

export const SessionSchema = component(
  'Session',
  z.object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.literal(900),
    refresh_token: z.string().optional().describe('also set as the httpOnly refresh cookie'),
    is_new_user: z.boolean().optional(),
    user: sessionUser,
  }),
  'A signed-in session; the refresh token is also set as an httpOnly cookie (path /api/v2/auth)',
);

export const RefreshedSchema = component(
  'Refreshed',
  z.object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.literal(900),
    refresh_token: z.string().optional().describe('only when the old one was sent in the body'),
  }),
);

export const StatusMessageSchema = component('StatusMessage', z.object({ status: z.literal('ok'), message: z.string() }));

export const ArticleSchema = component(
  'Article',
  z.object({
    id: z.string().describe('a short slug such as `tokens-500` or `plan-pro-month`'),
    kind: z.enum(['tokens', 'plan']),
    title: z.string(),
    tokens: z.number().int().nullable().describe('bonus tokens of a package (never expire); null for a plan'),
    plan: planSlug.nullable().describe('the plan of a plan article; null for a package'),
    period_days: z.number().int().nullable().describe('the period a plan article buys; null for a package'),
    price: z.object({ amount: z.number().describe('in major units (rubles)'), currency: z.string() }),
    stars: z.number().int().describe('price in Telegram Stars (the bot)'),
  }),
);

export const ArticleListSchema = component('ArticleList', z.object({ articles: z.array(ArticleSchema) }));

const orderStatus = z.enum(['pending', 'paid', 'fulfilled', 'canceled', 'expired', 'refund_pending', 'refunded']);

export const CheckoutSchema = component(
  'Checkout',
  z.object({
    order_id: z.number().int(),
    status: orderStatus,
    article_id: z.string(),
    amount: z.number(),
    currency: z.string(),
    confirmation_url: z.string().nullable().describe("open it to pay (the provider's page); null when already paid with a saved method"),
  }),
  'A started carrier payment: the order is fulfilled when the provider confirms the payment.',
);

export const OrderSchema = component(
  'Order',
  z.object({
    id: z.number().int(),
    reference: z.string(),
    status: orderStatus,
    article_id: z.string(),
    kind: z.enum(['tokens', 'plan']),
    tokens: z.number().int().nullable(),
    plan: planSlug.nullable(),
    period_days: z.number().int().nullable(),
    amount: z.number(),
    currency: z.string().describe('RUB (carrier) or XTR (Telegram Stars)'),
    provider: z.enum(['yookassa', 'stars']),
    confirmation_url: z.string().nullable(),
    created_at: isoDate,
    paid_at: isoDate.nullable(),
    fulfilled_at: isoDate.nullable(),
    refunded_at: isoDate.nullable(),
    refund: z.object({ tokens_taken: z.number().int(), tokens_spent: z.number().int() }).nullable(),
  }),
);

export const OrderListSchema = component('OrderList', z.object({ orders: z.array(OrderSchema) }));

export const NotificationAckSchema = component(
  'NotificationAck',
  z.object({
    status: z
      .enum(['fulfilled', 'duplicate', 'canceled', 'pending', 'ignored', 'mismatch', 'refunded'])
      .describe('refunded: the payment succeeded for no open order (its account was deleted, say) and was given back'),
  }),
);
