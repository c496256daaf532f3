import type { Api } from 'grammy';
import type { PlanDirectory } from '../../core/accounts/plans';
import type { PaymentListener, PaymentRefundedEvent, ReferralRewardedEvent, SubscriptionReplacedEvent } from '../../core/payments/ports';
import type { Logger } from '../../logger';
import type { BackgroundTasks } from './background';
import { planName } from '../render/format';
import { DEFAULT_LOCALE, isLocale, type I18n, type Translate } from '../i18n';

export interface BuyerNoticesDeps {
  api: Api;
  plans: PlanDirectory;
  /** The Telegram id of an account (null without one). */
  telegramIdOf: (userId: number) => Promise<string | null>;
  languageOf: (telegramId: number) => Promise<string | undefined>;
  i18n: I18n;
  log: Logger;
  tasks: BackgroundTasks;
}

/**
 * What the buyer hears from the bot about their money outside a checkout: a Stars subscription stopped because
 * they bought another plan, a Stars payment given back, and referral bonuses (the inviter's; the invitee's when it
 * paid on the web: a Stars payment's thanks name it). Sent in the background; a failure is logged.
 */
export class BuyerNotices implements PaymentListener {
  constructor(private readonly deps: BuyerNoticesDeps) {}

  private send(kind: string, telegramId: string | null, build: (t: Translate) => Promise<string>): void {
    if (!telegramId) return;
    this.deps.tasks.run(`buyer:${kind}`, async () => {
      const language = await this.deps.languageOf(Number(telegramId));
      const t = this.deps.i18n.translator(isLocale(language) ? language : DEFAULT_LOCALE);
      await this.deps.api.sendMessage(Number(telegramId), await build(t)).catch((err: unknown) => {
        this.deps.log.warn({ err, kind }, 'buyer notice not delivered');
      });
    });
  }

  subscriptionReplaced(e: SubscriptionReplacedEvent): void {
    this.send('subscription-replaced', e.telegramId, async (t) =>
      t('subscription-replaced', {
        old: await planName(this.deps.plans, e.canceledPlan),
        new: await planName(this.deps.plans, e.newPlan),
      }),
    );
  }

  async paymentRefunded(e: PaymentRefundedEvent): Promise<void> {
    if (e.provider !== 'stars') return;
    this.send('refund', await this.deps.telegramIdOf(e.userId), (t) =>
      Promise.resolve(
        t('payment-refunded-buyer', { article: e.articleTitle, amount: e.amount, taken: e.tokensTaken, spent: e.tokensSpent }),
      ),
    );
  }

  async referralRewarded(e: ReferralRewardedEvent): Promise<void> {
    if (e.inviterId !== null && e.inviterBonus > 0) {
      this.send('referral-inviter', await this.deps.telegramIdOf(e.inviterId), (t) =>
        Promise.resolve(t('referral-rewarded-inviter', { tokens: e.inviterBonus })),
      );
    }
    if (e.provider !== 'stars' && e.inviteeBonus > 0) {
      this.send('referral-invitee', await this.deps.telegramIdOf(e.inviteeId), (t) =>
        Promise.resolve(t('referral-rewarded-invitee', { tokens: e.inviteeBonus })),
      );
    }
  }
}
