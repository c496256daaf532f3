// Wire shapes of the console's money, catalog and vendor routes (/api/v2/admin/revenue, orders, catalog, vendors).
import { z } from 'zod';
import { components, OrderSchema } from './components';

function component<S extends z.ZodType>(id: string, schema: S, description: string): S {
  components.add(schema, { id, description });
  return schema;
}

const isoDate = z.string().describe('ISO 8601 UTC timestamp');

const revenueLine = {
  revenue_rub: z.number().describe('rubles of the paid orders (per model: their share, pro rata to the tokens consumed)'),
  revenue_stars: z.number().describe('Telegram Stars of the paid orders (per model: pro rata, as revenue_rub)'),
  orders: z.number().int().nullable().describe('paid orders; null per model (an order buys tokens, not a model)'),
  generations: z.number().int().describe('completed generations and answers'),
  tokens: z.number().int().describe('tokens they consumed'),
  vendor_cost_usd: z.number().describe('what they cost at the vendors, from each generation’s recorded vendor cost'),
  margin_usd: z.number().describe('revenue converted at PRICES_RUB_PER_USD and PRICES_USD_PER_STAR, less the vendor cost'),
};

export const RevenueReportSchema = component(
  'RevenueReport',
  z.object({
    from: isoDate,
    to: isoDate.describe('exclusive'),
    group_by: z.enum(['day', 'model']),
    rates: z.object({ rub_per_usd: z.number(), usd_per_star: z.number() }),
    data: z.array(z.object({ key: z.string().describe('YYYY-MM-DD (UTC) or the model slug'), ...revenueLine })),
    totals: z.object(revenueLine),
  }),
  'Revenue, vendor cost and margin of a range, per day or per model',
);

export const AdminOrderSchema = component(
  'AdminOrder',
  OrderSchema.extend({
    user_id: z.number().int(),
    provider_charge_id: z.string().nullable(),
    refund_error: z.string().nullable(),
  }),
  'An order as the operator sees it',
);

export const AdminOrderPageSchema = component(
  'AdminOrderPage',
  z.object({ data: z.array(AdminOrderSchema), next_cursor: z.string().nullable() }),
  'One page of orders, newest first',
);

export const AdminRefundSchema = component(
  'AdminRefund',
  z.object({
    state: z
      .enum(['refunded', 'already_refunded', 'queued', 'pending', 'canceled', 'failed'])
      .describe('refunded; already_refunded (nothing changed); queued (retried by the job); pending or canceled at the provider; failed'),
    error: z.string().nullable(),
    tokens_taken: z.number().int().nullable(),
    tokens_spent: z.number().int().nullable(),
    order: AdminOrderSchema,
  }),
  'What a refund did',
);

const priceLine = z.object({
  unit: z.string(),
  tokens: z.number().describe('what the service charges for the unit'),
  vendor_usd: z.number().describe('the vendor’s list price of the unit'),
  revenue_usd: z.number().describe('the tokens valued at the cheapest token sold'),
  below_cost: z.boolean(),
});

export const CatalogModelSchema = component(
  'AdminCatalogModel',
  z.object({
    slug: z.string(),
    vendor: z.string(),
    upstream_id: z.string(),
    category: z.string(),
    enabled: z.boolean(),
    replacement: z.string().nullable(),
    shutdown_at: z.string().nullable().describe('YYYY-MM-DD'),
    deprecated_at: z.string().nullable(),
    retired: z.boolean(),
    served_by: z.string().nullable().describe('the model answering its requests now; null: 410 model_retired'),
    rates: z.array(priceLine),
    vendor_cost: z.object({ source: z.string(), read: z.string().describe('the day the price was read') }),
    price_override: z
      .object({ by: z.enum(['catalog', 'operator']), factor: z.number().nullable(), tokens: z.number().nullable(), reason: z.string() })
      .nullable(),
    below_cost: z.boolean(),
    last_check: z
      .object({
        at: isoDate,
        findings: z.object({
          status: z.enum(['live', 'deprecated', 'gone', 'unchecked']),
          shutdown_at: z.string().nullable(),
          missing_since: isoDate.nullable(),
          suspect_since: isoDate.nullable(),
        }),
      })
      .nullable()
      .describe('what the vendor’s model list said at the last catalog:check; null: never checked'),
  }),
  'A catalog model: lifecycle, rates with vendor cost beside them, the last check',
);

export const CatalogListSchema = component(
  'AdminCatalog',
  z.object({
    rates: z.object({ rub_per_usd: z.number(), usd_per_star: z.number() }),
    token_usd: z.number().nullable().describe('what one token brings in at the cheapest offer'),
    data: z.array(CatalogModelSchema),
  }),
  'Every catalog model',
);

export const VendorHealthSchema = component(
  'AdminVendorHealth',
  z.object({
    data: z.array(
      z.object({
        vendor: z.string(),
        connection: z.number().int().describe('its place in <VENDOR>_API_KEY (0 is the first key)'),
        origin: z.string(),
        sandbox: z.boolean(),
        weight: z.number(),
        breaker: z.enum(['closed', 'open', 'half_open']),
        failures: z.number().int(),
        calls_5m: z.number().int(),
        error_rate_5m: z.number().nullable().describe('share of the last 5 minutes’ calls the vendor failed (this instance)'),
        quota_paused_until: isoDate.nullable(),
        keys: z.number().int().describe('how many connections the vendor has'),
      }),
    ),
  }),
  'Each vendor connection’s breaker, error rate and quota pause',
);
