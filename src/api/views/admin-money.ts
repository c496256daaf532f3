// The console's money, catalog and vendor records in their /api/v2/admin wire shapes.
import type { CatalogConsoleView, CatalogModelRecord } from '../../core/admin/catalog-console';
import type { AdminRefund, OrderPage } from '../../core/admin/order-desk';
import type { RevenueLine, RevenueReport } from '../../core/admin/revenue';
import type { VendorConnectionHealth } from '../../core/admin/vendor-health';
import type { CurrencyRates } from '../../core/catalog/price-report';
import { toOrderView, type OrderRecord } from '../../core/payments/orders';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function revenueLine(l: RevenueLine) {
  return {
    revenue_rub: l.revenueRub,
    revenue_stars: l.revenueStars,
    orders: l.orders,
    generations: l.generations,
    tokens: l.tokens,
    vendor_cost_usd: l.vendorCostUsd,
    margin_usd: l.marginUsd,
  };
}

const ratesView = (r: CurrencyRates) => ({ rub_per_usd: r.rubPerUsd, usd_per_star: r.usdPerStar });

export function revenueView(r: RevenueReport, rates: CurrencyRates) {
  return {
    from: r.from.toISOString(),
    to: r.to.toISOString(),
    group_by: r.groupBy,
    rates: ratesView(rates),
    data: r.rows.map((row) => ({ key: row.key, ...revenueLine(row) })),
    totals: revenueLine(r.totals),
  };
}

export function adminOrderView(o: OrderRecord) {
  return { ...toOrderView(o), user_id: o.userId, provider_charge_id: o.providerChargeId, refund_error: o.refundError };
}

export function orderPageView(p: OrderPage) {
  return { data: p.orders.map(adminOrderView), next_cursor: p.nextCursor };
}

export function refundView({ result, order }: AdminRefund) {
  return {
    state: result.state,
    error: result.error ?? null,
    tokens_taken: result.reversal?.tokensTaken ?? null,
    tokens_spent: result.reversal?.tokensSpent ?? null,
    order: adminOrderView(order),
  };
}

export function catalogModelView(m: CatalogModelRecord) {
  const f = m.lastCheck;
  return {
    slug: m.state.slug,
    vendor: m.state.provider,
    upstream_id: m.state.upstream_id,
    category: m.category,
    enabled: m.state.enabled,
    replacement: m.state.replacement,
    shutdown_at: m.state.shutdown_at,
    deprecated_at: m.state.deprecated_at,
    retired: m.state.retired,
    served_by: m.state.served_by,
    rates: m.prices.lines.map((l) => ({
      unit: l.unit,
      tokens: l.tokens,
      vendor_usd: l.vendor_usd,
      revenue_usd: l.revenue_usd,
      below_cost: l.below_cost,
    })),
    vendor_cost: { source: m.prices.source, read: m.prices.read },
    price_override: m.prices.override,
    below_cost: m.prices.below_cost,
    last_check: f
      ? {
          at: new Date(f.checkedAt).toISOString(),
          findings: { status: f.status, shutdown_at: f.shutdownAt, missing_since: iso(f.missingSince), suspect_since: iso(f.suspectSince) },
        }
      : null,
  };
}

export function catalogView(v: CatalogConsoleView) {
  return { rates: ratesView(v.rates), token_usd: v.tokenUsd, data: v.models.map(catalogModelView) };
}

export function vendorHealthView(rows: readonly VendorConnectionHealth[]) {
  return {
    data: rows.map((h) => ({
      vendor: h.vendor,
      connection: h.connection,
      origin: h.origin,
      sandbox: h.sandbox,
      weight: h.weight,
      breaker: h.breaker,
      failures: h.failures,
      calls_5m: h.calls5m,
      error_rate_5m: h.errorRate5m,
      quota_paused_until: iso(h.quotaPausedUntil),
      keys: h.keys,
    })),
  };
}
