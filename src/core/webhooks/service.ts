import { DataSource } from 'typeorm';
import { webhookDeliveriesTotal } from '../ops/metrics';
import type { GenerationEntity } from '../../db/entities';
import { AccountCache } from '../accounts/account-cache';
import type { AccountChangeFeed } from '../accounts/account-changes';
import type { Logger } from '../../logger';
import type { GenerationNotifier } from '../generations/ports';
import type { LinkOrigins } from '../links/link-origins';
import type { HostResolver } from '../net/safe-fetch';
import type { PaymentListener, PaymentRefundedEvent, PaymentSucceededEvent } from '../payments/ports';
import { RetryPolicy, retryDelayMs } from './backoff';
import {
  AttemptOutcome,
  AttemptView,
  claimDelivery,
  insertDeliveries,
  overdueDeliveries,
  purgeFinishedDeliveries,
  recentAttempts,
  recordAttempt,
} from './deliveries';
import { WebhookEndpoints } from './endpoints';
import {
  BalanceLowEventBody,
  generationEventBody,
  paymentEventBody,
  refundEventBody,
  TEST_EVENT,
  TestEventBody,
  WebhookEventBody,
} from './events';
import { FailingEndpointListener, WebhookQueue } from './ports';
import { sendWebhook } from './sender';
import { newMessageId, webhookHeaders } from './signing';

export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE=1: private and loopback targets (development, tests). */
  allowPrivate: boolean;
  /** Production: https targets only. */
  requireHttps: boolean;
  /** WEBHOOK_MAX_ENDPOINTS per account. */
  maxEndpoints: number;
  retry: RetryPolicy;
  /** An answer must be complete within this long (10 s). */
  timeoutMs: number;
  /** Bases of `result_url` in events (core/links). */
  links: LinkOrigins;
}

export interface WebhookServiceDeps {
  ds: DataSource;
  queue: WebhookQueue;
  log: Logger;
  settings: WebhookSettings;
  /** DNS for the SSRF checks; injectable for tests. */
  resolve?: HostResolver;
  /** With a feed, each account's subscribed events are kept in memory while it is live (read on every finished generation). */
  changes?: AccountChangeFeed;
}

export interface QueuedEvent {
  webhook_id: string;
  event: string;
  created_at: string;
}

const BALANCE_LOW_SHARE = 0.1;
/** The receiver says the endpoint is gone for good. */
const GONE = 410;
const RETRY_AFTER_STATUSES = new Set([429, 503]);
/** An overdue delivery is re-triggered by the sweep after this long (its job was lost). */
const SWEEP_GRACE_MS = 30_000;
/** How long finished deliveries and their attempts stay visible. */
const HISTORY_DAYS = 30;

/**
 * Event delivery to the endpoints an account registered: signed (Standard Webhooks), durable (one row per
 * delivery, attempts triggered by jobs), retried with backoff within the retry window, recorded per attempt.
 * It listens to finished generations through the core's notifier, whichever door started them.
 */
export class WebhookService implements GenerationNotifier, PaymentListener {
  readonly endpoints: WebhookEndpoints;
  private readonly failingListeners: FailingEndpointListener[] = [];
  private readonly subscriptions?: AccountCache<ReadonlySet<string>>;

  constructor(private readonly deps: WebhookServiceDeps) {
    this.endpoints = new WebhookEndpoints(
      deps.ds,
      {
        maxEndpoints: deps.settings.maxEndpoints,
        requireHttps: deps.settings.requireHttps,
        allowPrivate: deps.settings.allowPrivate,
        resolve: deps.resolve,
      },
      deps.changes,
    );
    this.subscriptions = deps.changes && new AccountCache(deps.changes);
  }

  get settings(): WebhookSettings {
    return this.deps.settings;
  }

  /** Admin notification when an endpoint turns failing (registered by the bot; the core knows no messenger). */
  onEndpointFailing(listener: FailingEndpointListener): void {
    this.failingListeners.push(listener);
  }

  async generationFinished(gen: GenerationEntity): Promise<void> {
    if (gen.status === 'pending') return;
    try {
      const subscribed = await this.subscribedEvents(gen.userId);
      if (subscribed.size === 0) return;
      const body = generationEventBody(gen, this.deps.settings.links);
      if (subscribed.has(body.event)) await this.emit(gen.userId, body);
      if (gen.status === 'completed' && (gen.tokensSpent ?? 0) > 0 && subscribed.has('balance.low')) await this.checkBalanceLow(gen.userId);
    } catch (err) {
      this.deps.log.error({ err, generation: gen.id }, 'webhook events of a generation could not be queued');
    }
  }

  /** PaymentListener (registered on the payments hub): every paid order becomes `payment.succeeded`. */
  async paymentSucceeded(event: PaymentSucceededEvent): Promise<void> {
    try {
      if (!(await this.subscribedEvents(event.userId)).has('payment.succeeded')) return;
      await this.emit(event.userId, paymentEventBody(event));
    } catch (err) {
      this.deps.log.error({ err, order: event.orderId }, 'payment.succeeded could not be queued');
    }
  }

  /** PaymentListener: every refunded order becomes `payment.refunded` (the buyer's own systems hear of it). */
  async paymentRefunded(event: PaymentRefundedEvent): Promise<void> {
    try {
      if (!(await this.subscribedEvents(event.userId)).has('payment.refunded')) return;
      await this.emit(event.userId, refundEventBody(event));
    } catch (err) {
      this.deps.log.error({ err, order: event.orderId }, 'payment.refunded could not be queued');
    }
  }

  /** POST /api/v2/webhooks/{id}/test: a `webhook.test` event to that endpoint only, through the normal delivery path. */
  async sendTest(userId: number, endpointId: number): Promise<QueuedEvent> {
    await this.endpoints.get(userId, endpointId);
    const body: TestEventBody = {
      event: TEST_EVENT,
      webhook_endpoint_id: endpointId,
      message: 'This is a test event: your endpoint receives and verifies webhooks.',
      created_at: new Date().toISOString(),
    };
    const webhookId = await this.emit(userId, body, endpointId);
    return { webhook_id: webhookId, event: TEST_EVENT, created_at: body.created_at };
  }

  async deliveries(userId: number, endpointId: number, limit: number): Promise<AttemptView[]> {
    await this.endpoints.get(userId, endpointId);
    return recentAttempts(this.deps.ds, endpointId, limit);
  }

  private async subscribedEvents(userId: number): Promise<ReadonlySet<string>> {
    const key = String(userId);
    const cached = this.subscriptions?.get(key);
    if (cached) return cached;
    const mark = this.subscriptions?.mark() ?? 0;
    const rows = await this.deps.ds.query<{ event: string }[]>(
      'SELECT DISTINCT unnest(events) AS event FROM webhook_endpoints WHERE user_id = $1',
      [userId],
    );
    const events = new Set(rows.map((r) => r.event));
    this.subscriptions?.set(key, userId, events, mark);
    return events;
  }

  /** Stores one delivery per subscribed endpoint, then triggers the first attempts. Returns the webhook-id. */
  private async emit(userId: number, body: WebhookEventBody, onlyEndpoint?: number): Promise<string> {
    const messageId = newMessageId();
    const ids = await insertDeliveries(this.deps.ds, { userId, event: body.event, onlyEndpoint }, messageId, JSON.stringify(body));
    for (const id of ids) {
      // A lost trigger is not a lost event: the sweep finds the stored delivery.
      await this.deps.queue
        .enqueue(id)
        .catch((err: unknown) => this.deps.log.warn({ err, delivery: id }, 'webhook delivery job not queued; the sweep will'));
    }
    return messageId;
  }

  /** balance.low at most once per billing period: the marker row is inserted by the call that fires it. */
  private async checkBalanceLow(userId: number): Promise<void> {
    const rows = await this.deps.ds.query<
      { plan_slug: string; monthly_tokens: number; plan_tokens: number; bonus_tokens: number; fired: number }[]
    >(
      `WITH s AS (
         SELECT u.id, u.plan_slug, u.period_started_at, p.monthly_tokens, b.plan_tokens, b.bonus_tokens
           FROM users u JOIN plans p ON p.slug = u.plan_slug JOIN balances b ON b.user_id = u.id
          WHERE u.id = $1
       ),
       ins AS (
         INSERT INTO webhook_balance_alerts (user_id, period_started_at)
         SELECT id, period_started_at FROM s
          WHERE monthly_tokens > 0 AND (plan_tokens + bonus_tokens) < monthly_tokens * $2::double precision
         ON CONFLICT DO NOTHING
         RETURNING user_id
       )
       SELECT s.plan_slug, s.monthly_tokens, s.plan_tokens, s.bonus_tokens, (SELECT count(*) FROM ins)::int AS fired FROM s`,
      [userId, BALANCE_LOW_SHARE],
    );
    const row = rows[0];
    if (!row || row.fired === 0) return;
    const body: BalanceLowEventBody = {
      event: 'balance.low',
      token_balance: row.plan_tokens + row.bonus_tokens,
      plan_tokens: row.plan_tokens,
      bonus_tokens: row.bonus_tokens,
      plan: row.plan_slug,
      plan_allowance: row.monthly_tokens,
      threshold: Math.ceil(row.monthly_tokens * BALANCE_LOW_SHARE),
      created_at: new Date().toISOString(),
    };
    await this.emit(userId, body);
  }

  /** One attempt of a delivery (run by the durable job). Safe to call twice: only one caller wins the claim. */
  async attempt(deliveryId: number): Promise<void> {
    const { ds, log, settings, queue } = this.deps;
    const claimed = await claimDelivery(ds, deliveryId, settings.timeoutMs + 30_000);
    if (!claimed) return;
    const result = await sendWebhook(claimed.url, webhookHeaders(claimed.secret, claimed.messageId, claimed.payload), claimed.payload, {
      timeoutMs: settings.timeoutMs,
      allowPrivate: settings.allowPrivate,
      resolve: this.deps.resolve,
    });
    let outcome: AttemptOutcome = { kind: 'succeeded' };
    if (result.statusCode === GONE) outcome = { kind: 'gone' };
    else if (!result.ok) {
      let delayMs = retryDelayMs(settings.retry, claimed.attempt);
      // A receiver that says when to come back (429, 503) is not asked sooner; past the window the delivery fails.
      if (result.retryAfterMs !== null && RETRY_AFTER_STATUSES.has(result.statusCode ?? 0))
        delayMs = Math.max(delayMs, result.retryAfterMs);
      const past = Date.now() + delayMs - claimed.createdAt.getTime() > settings.retry.windowMs;
      outcome = past ? { kind: 'gave_up' } : { kind: 'retry', delayMs };
    }
    const { endpointTurnedFailing, endpointDisabled } = await recordAttempt(ds, claimed, result, outcome);
    webhookDeliveriesTotal.inc({ outcome: outcome.kind });
    if (outcome.kind === 'retry') {
      await queue
        .enqueue(claimed.id, outcome.delayMs)
        .catch((err: unknown) => log.warn({ err, delivery: claimed.id }, 'webhook retry not queued; the sweep will'));
    }
    if (outcome.kind === 'gave_up') {
      log.warn(
        { endpoint: claimed.endpointId, delivery: claimed.id, attempts: claimed.attempt, error: result.error },
        'webhook delivery failed for good',
      );
    }
    if (endpointTurnedFailing || endpointDisabled) {
      const failing = {
        disabled: endpointDisabled,
        endpointId: claimed.endpointId,
        userId: claimed.userId,
        url: claimed.url,
        event: claimed.event,
        messageId: claimed.messageId,
        attempts: claimed.attempt,
        lastError: result.error,
      };
      for (const listener of this.failingListeners) {
        try {
          listener(failing);
        } catch (err) {
          log.warn({ err }, 'failing-endpoint listener threw');
        }
      }
    }
  }

  /** Drops finished deliveries (and their attempts) older than the history kept. Returns how many. */
  async purgeFinished(): Promise<number> {
    return purgeFinishedDeliveries(this.deps.ds, HISTORY_DAYS);
  }

  /** Re-triggers overdue deliveries whose job was lost. Returns how many. */
  async sweep(): Promise<number> {
    const ids = await overdueDeliveries(this.deps.ds, SWEEP_GRACE_MS, 500);
    for (const id of ids) await this.deps.queue.enqueue(id);
    return ids.length;
  }
}
