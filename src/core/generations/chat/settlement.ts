import { chatVendorUsage, vendorCostUsd } from '../../catalog/vendor-cost';
import { DataSource } from 'typeorm';
import type { Logger } from '../../../logger';
import { getBalance } from '../../billing/ledger';
import { InsufficientTokensError } from '../../billing/errors';
import { priceChatUsage } from '../../catalog/pricing';
import { TextModel } from '../../catalog/types';
import { RateDecision, RateLimiter } from '../../limits/rate-limiter';
import { deferredBillingTotal } from '../../ops/metrics';
import { saysModelNotFound } from '../../providers/not-found';
import { ChatUsage, ProviderError } from '../../providers/types';
import { announceFinished } from '../delivery/announce';
import { BalanceHints } from './balance-hints';
import { BillingOutbox, DeferredOutcome } from '../settlement/billing-outbox';
import { GenerationBilling } from '../settlement/billing-batches';
import type { ChatBilling } from './types';
import { failureMessage } from '../errors';
import { NewGeneration, NewLease, switchPendingModel } from '../settlement/lifecycle';
import { GenerationNotifier } from '../ports';
import { Actor } from '../service';

const MAX_STORED_TEXT = 100_000;

export interface ChatSettlementDeps {
  ds: DataSource;
  /** Opens (holds tokens) and finishes (settles) the answers' generations, group-committed. */
  billing: GenerationBilling;
  limiter: RateLimiter;
  log: Logger;
  /** Where outcomes go when the database cannot take them. */
  outbox: BillingOutbox;
  /** Finished chats are announced like media generations (webhooks: one event stream per account). */
  notifier?: GenerationNotifier;
  /** The balances this instance last saw; a refused hold forgets one, a settle notes the new one. */
  balances: BalanceHints;
  /** Told when the vendor answers that a catalog model does not exist (the catalog marks it suspect). */
  onModelNotFound?: (slug: string) => void;
}

/** An answer's billing state: which generation holds its tokens, on which model, since when. */
export interface ChatRun {
  model: TextModel;
  userId: number;
  generationId: number;
  startedAt: number;
  reserve: number;
}

/**
 * The money side of a chat answer: the rate check and the hold before the call, then exactly one of withdraw
 * (never called), settle (on the real usage) or fail (nothing charged). None of these throws on a database
 * outage after the hold: the outcome then waits in the billing outbox.
 */
export class ChatSettlement {
  constructor(private readonly deps: ChatSettlementDeps) {}

  /**
   * The rate check and the hold, side by side; a hold whose rate check refused is withdrawn before the error goes
   * out. `rated` settles as soon as the rate check does (the hold may still be committing): a vendor call started
   * early waits for it, so a request over its limits never reaches the vendor. `admitted` is both.
   */
  admit(
    actor: Actor,
    generation: NewGeneration,
    lease: NewLease,
    opts: { holdAfterTurn?: boolean } = {},
  ): { rated: Promise<RateDecision>; admitted: Promise<{ rate: RateDecision; id: number; createdAt: Date }> } {
    const rating = this.deps.limiter.admit(actor.user.id, actor.plan);
    // `holdAfterTurn`: the hold is submitted in this turn's check phase, so that its statement goes out after what
    // this turn still writes there (a vendor request started beside it), not before.
    const opening = opts.holdAfterTurn
      ? new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.deps.billing.open(generation, lease))
      : this.deps.billing.open(generation, lease);
    rating.catch(() => undefined);
    const admitted = (async () => {
      const [rated, opened] = await Promise.allSettled([rating, opening]);
      if (rated.status === 'rejected') {
        if (opened.status === 'fulfilled') await this.withdraw(opened.value.id);
        throw rated.reason;
      }
      if (opened.status === 'rejected') {
        if (opened.reason instanceof InsufficientTokensError) this.deps.balances.forget(actor.user.id);
        throw opened.reason;
      }
      return { rate: rated.value, ...opened.value };
    })();
    admitted.catch(() => undefined);
    return { rated: rating, admitted };
  }

  /** The answer's model changed before its first byte (a fallback): its generation names the one that runs it now. */
  async switchModel(generationId: number, modelSlug: string): Promise<void> {
    await switchPendingModel(this.deps.ds, generationId, modelSlug);
  }

  /** Takes back a hold whose request was refused before the vendor call; if that fails, the deadline sweeper releases it. */
  async withdraw(generationId: number): Promise<void> {
    try {
      await this.deps.billing.withdraw(generationId);
    } catch (err) {
      this.deps.log.error({ err, generationId }, 'a refused chat request kept its hold until the deadline sweep');
    }
  }

  /** Settles on the real usage; when the database cannot take it, the outcome goes to the outbox instead. */
  async settle(run: ChatRun, text: string, usage: ChatUsage): Promise<ChatBilling> {
    const cost = priceChatUsage(run.model, usage);
    const vendorUsage = chatVendorUsage(usage);
    const outcome = {
      op: 'complete' as const,
      generationId: run.generationId,
      text: text.slice(0, MAX_STORED_TEXT),
      metadata: { ...usage },
      cost,
      processingMs: Date.now() - run.startedAt,
      vendorUsage: { ...vendorUsage },
      vendorCostUsd: vendorCostUsd(run.model, vendorUsage),
    };
    try {
      const done = await this.deps.billing.finish(outcome);
      if (done) {
        this.deps.balances.note(run.userId, done.balance);
        await announceFinished(this.deps.ds, this.deps.notifier, done.row, this.deps.log);
      }
      return { generationId: run.generationId, tokensSpent: done?.tokensSpent ?? 0, balance: done?.balance ?? 0 };
    } catch (err) {
      await this.defer(outcome, err);
      return { generationId: run.generationId, tokensSpent: Math.min(cost, run.reserve), deferred: true };
    }
  }

  /** Releases the hold of an answer the vendor failed; nothing is charged. */
  async fail(run: ChatRun, err: unknown): Promise<ChatBilling> {
    const kind = err instanceof ProviderError ? err.kind : 'upstream';
    if (!(err instanceof ProviderError)) this.deps.log.error({ err, generationId: run.generationId }, 'chat failed unexpectedly');
    if (saysModelNotFound(err)) this.deps.onModelNotFound?.(run.model.slug);
    const outcome = {
      op: 'fail' as const,
      generationId: run.generationId,
      kind,
      message: failureMessage(kind, run.model.slug),
      processingMs: Date.now() - run.startedAt,
    };
    try {
      const done = await this.deps.billing.finish(outcome);
      if (done) await announceFinished(this.deps.ds, this.deps.notifier, done.row, this.deps.log);
      return {
        generationId: run.generationId,
        tokensSpent: 0,
        balance: done?.balance ?? (await getBalance(this.deps.ds, run.userId)).total,
      };
    } catch (dbErr) {
      await this.defer(outcome, dbErr);
      return { generationId: run.generationId, tokensSpent: 0, deferred: true };
    }
  }

  private async defer(outcome: DeferredOutcome, cause: unknown): Promise<void> {
    this.deps.log.warn(
      { err: (cause as Error).message, generationId: outcome.generationId },
      'chat billing deferred: the database is unavailable',
    );
    deferredBillingTotal.inc();
    try {
      await this.deps.outbox.add(outcome);
    } catch (err) {
      // Nothing durable is left: the deadline sweeper releases the reservation (the answer goes unbilled).
      this.deps.log.error({ err, generationId: outcome.generationId }, 'chat billing could not be deferred');
    }
  }
}
