import type { Api } from 'grammy';
import type { CatalogChange } from '../../core/catalog/live/check';
import type { GenerationNotifier } from '../../core/generations/ports';
import type { CircuitEvent } from '../../core/providers/provider-gate';
import type { GenerationRecord, UserRecord } from '../../core/records';
import type {
  OrphanPaymentEvent,
  PaymentListener,
  PaymentRefundedEvent,
  PaymentSucceededEvent,
  RefundCanceledEvent,
} from '../../core/payments/ports';
import type { FailingEndpoint } from '../../core/webhooks/ports';
import type { Logger } from '../../logger';
import type { BackgroundTasks } from './background';
import { DEFAULT_LOCALE, isLocale, type I18n, type Locale, type Translate } from '../i18n';

export interface AdminNotifierDeps {
  api: Api;
  /** The stored language of the account behind a Telegram id. */
  languageOf: (telegramId: number) => Promise<string | undefined>;
  i18n: I18n;
  log: Logger;
  tasks: BackgroundTasks;
  /** ADMIN_CHAT_IDS: users and groups that receive operator notifications. */
  chatIds: readonly number[];
  burstThreshold: number;
  burstWindowMs: number;
}

/**
 * Operator notifications to ADMIN_CHAT_IDS: new users, provider outages and recoveries, bursts of failed
 * generations, paid and refunded orders. Each admin reads them in the language of their own account (English without
 * one). Sending happens in the background; a failure to notify is logged, never raised.
 */
export class AdminNotifier implements GenerationNotifier, PaymentListener {
  private failures: number[] = [];
  private lastBurstAlertAt = 0;

  constructor(private readonly deps: AdminNotifierDeps) {}

  private async localeOf(chatId: number): Promise<Locale> {
    if (chatId < 0) return DEFAULT_LOCALE;
    const language = await this.deps.languageOf(chatId);
    return isLocale(language) ? language : DEFAULT_LOCALE;
  }

  /** Sends a message built per admin language to every admin chat. */
  notify(kind: string, build: (t: Translate) => string): void {
    for (const chatId of this.deps.chatIds) {
      this.deps.tasks.run(`admin:${kind}`, async () => {
        const t = this.deps.i18n.translator(await this.localeOf(chatId));
        await this.deps.api.sendMessage(chatId, build(t)).catch((err: unknown) => {
          this.deps.log.warn({ err, chatId, kind }, 'admin notification not delivered');
        });
      });
    }
  }

  newUser(user: UserRecord, username?: string): void {
    this.notify('new-user', (t) =>
      t('admin-new-user', { id: String(user.id), name: user.name, username: username ? `@${username}` : '—' }),
    );
  }

  providerCircuit(event: CircuitEvent): void {
    // One of several connections (keys) of a vendor is named by its place: `openai #2/3`.
    const provider = event.connections > 1 ? `${event.provider} #${event.connection + 1}/${event.connections}` : event.provider;
    if (event.state === 'open') {
      this.notify('outage', (t) => t('admin-provider-down', { provider, reason: (event.reason ?? '').slice(0, 300) }));
    } else {
      this.notify('recovery', (t) => t('admin-provider-up', { provider }));
    }
  }

  /** PaymentListener: each paid order, with the buyer's and the article's names. */
  paymentSucceeded(e: PaymentSucceededEvent): void {
    this.notify('payment', (t) =>
      t('admin-payment-paid', {
        name: e.userName,
        article: e.articleTitle,
        amount: e.amount,
        currency: e.currency,
        provider: e.provider,
        charge: e.chargeId,
      }),
    );
  }

  paymentRefunded(e: PaymentRefundedEvent): void {
    this.notify('refund', (t) =>
      t('admin-payment-refunded', {
        name: e.userName,
        article: e.articleTitle,
        amount: e.amount,
        currency: e.currency,
        taken: e.tokensTaken,
        spent: e.tokensSpent,
      }),
    );
  }

  /** The provider declined a refund (at once, or after it was pending): nothing was taken back. */
  refundCanceled(e: RefundCanceledEvent): void {
    this.notify('refund-canceled', (t) =>
      t('admin-refund-canceled-notice', { order: e.reference, id: String(e.userId), provider: e.provider, reason: e.reason.slice(0, 300) }),
    );
  }

  /** A payment that fulfilled no order (its account deleted, its order canceled or unknown): refunded, or to refund by hand. */
  orphanPayment(e: OrphanPaymentEvent): void {
    this.notify('orphan-payment', (t) =>
      t('admin-orphan-payment', {
        outcome: e.outcome,
        provider: e.provider,
        charge: e.chargeId,
        amount: e.amount,
        currency: e.currency,
        reason: e.reason,
        order: e.reference ?? '—',
        error: e.error ?? '',
      }),
    );
  }

  webhookFailing(e: FailingEndpoint): void {
    const args = {
      endpoint: String(e.endpointId),
      id: String(e.userId),
      url: e.url,
      attempts: e.attempts,
      error: (e.lastError ?? '').slice(0, 300),
    };
    this.notify('webhook-failing', (t) => (e.disabled ? t('admin-webhook-disabled', args) : t('admin-webhook-failing', args)));
  }

  /** A vendor check found models deprecated, gone or back: one message naming each, with what serves it. */
  catalogChanged(changes: readonly CatalogChange[]): void {
    this.notify('catalog', (t) =>
      [
        t('admin-catalog-changed', { count: changes.length }),
        ...changes.map((c) =>
          t('admin-catalog-model', {
            slug: c.slug,
            status: c.status,
            shutdown: c.shutdownAt ?? '—',
            replacement: c.replacement ?? '—',
          }),
        ),
      ].join('\n'),
    );
  }

  /** Counts failed generations; a burst within the window makes one alert (at most one per window). */
  async generationFinished(gen: GenerationRecord): Promise<void> {
    if (gen.status !== 'failed') return;
    const now = Date.now();
    this.failures = this.failures.filter((at) => now - at < this.deps.burstWindowMs);
    this.failures.push(now);
    if (this.failures.length < this.deps.burstThreshold || now - this.lastBurstAlertAt < this.deps.burstWindowMs) return;
    this.lastBurstAlertAt = now;
    const count = this.failures.length;
    const minutes = Math.max(1, Math.round(this.deps.burstWindowMs / 60_000));
    this.notify('failure-burst', (t) =>
      t('admin-failure-burst', { count, minutes, model: gen.modelSlug, kind: gen.errorKind ?? 'upstream' }),
    );
  }
}
