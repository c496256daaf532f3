import { isRefusedStatement } from '../../../db/transaction';
import { GroupCommit } from '../../billing/group-commit';
import { Queryable } from '../../billing/queryable';
import { billingWaitSeconds } from '../../ops/metrics';
import { applyDeferredOutcome, DeferredOutcome } from './billing-outbox';
import type { SettleJournal } from './settle-journal';
import { createPendingGeneration, NewGeneration, NewLease, PendingGeneration, Transition, withdrawPendingGeneration } from './lifecycle';
import { createPendingGenerations, finishGenerations, GenerationToOpen } from './lifecycle-batch';

export interface GenerationBillingOptions {
  /**
   * Runs the holds (and withdrawals), with synchronous commit: a hold (and its generation's id) is on disk before
   * the vendor is called, so an answer delivered while PostgreSQL then crashes still has its generation to be
   * billed on.
   */
  holdSql: Queryable;
  /**
   * Runs the settlements. With synchronous commit a charge is on disk before anyone is told about it; without,
   * `journal` must be given: it keeps each settlement until the WAL flush passes it, and hands it to the outbox
   * if the server may have lost it. A server that refuses to tell its WAL position gets its settlements on
   * `holdSql` instead, waiting for the flush.
   */
  sql: Queryable;
  journal?: SettleJournal;
  /** Group commit on (default); off runs one statement per call (BILLING_BATCH=off, for comparisons). */
  batch?: boolean;
  /** Most items per statement (default 64). */
  maxBatch?: number;
  /** Batches of each kind running at once (default 2). */
  maxInFlight?: number;
}

/**
 * The token hold and the final charge of a chat answer, group-committed: holds (and settlements) that arrive
 * together go to PostgreSQL as one statement, so a busy account's balance row is locked once per batch and a
 * batch of holds waits for one WAL flush. Every call still gets exactly its own outcome.
 */
export class GenerationBilling {
  private readonly opens?: GroupCommit<GenerationToOpen, PendingGeneration>;
  private readonly finishes?: GroupCommit<DeferredOutcome, Transition | null>;

  constructor(private readonly opts: GenerationBillingOptions) {
    if (opts.batch === false) return;
    const sizes = { maxBatch: opts.maxBatch ?? 64, maxInFlight: opts.maxInFlight ?? 2, canRetryAlone: isRefusedStatement };
    this.opens = new GroupCommit({
      ...sizes,
      runBatch: (items) => createPendingGenerations(opts.holdSql, items),
      runOne: (item) => createPendingGeneration(opts.holdSql, item.generation, item.lease),
    });
    this.finishes = new GroupCommit({
      ...sizes,
      runBatch: async (outcomes) => {
        const { sql, journal } = this.settlementPath();
        const results = await finishGenerations(sql, outcomes);
        results.forEach((r, i) => {
          if (r.ok && r.value) journal?.record(outcomes[i]);
        });
        return results;
      },
      runOne: (outcome) => this.finishOne(outcome),
    });
  }

  /**
   * Where a settlement commits now: without waiting for the flush while the journal can follow the WAL to disk
   * (it then keeps the outcome), else waiting for it.
   */
  private settlementPath(): { sql: Queryable; journal?: SettleJournal } {
    const journal = this.opts.journal;
    if (!journal) return { sql: this.opts.sql };
    return journal.refused ? { sql: this.opts.holdSql } : { sql: this.opts.sql, journal };
  }

  private async finishOne(outcome: DeferredOutcome): Promise<Transition | null> {
    const { sql, journal } = this.settlementPath();
    const done = await applyDeferredOutcome(sql, outcome);
    if (done) journal?.record(outcome);
    return done;
  }

  /**
   * Creates the pending generation with its token hold (and its lease, when given).
   * @throws InsufficientTokensError
   */
  open(generation: NewGeneration, lease?: NewLease): Promise<PendingGeneration> {
    const timer = billingWaitSeconds.startTimer({ step: 'hold' });
    const opened = this.opens ? this.opens.submit({ generation, lease }) : createPendingGeneration(this.opts.holdSql, generation, lease);
    return opened.finally(timer);
  }

  /** Completes (settles) or fails (releases) a pending generation; null when it was no longer pending. */
  async finish(outcome: DeferredOutcome): Promise<Transition | null> {
    const timer = billingWaitSeconds.startTimer({ step: 'settle' });
    return (this.finishes ? this.finishes.submit(outcome) : this.finishOne(outcome)).finally(timer);
  }

  /**
   * Undoes an opened generation that will not run (its request was refused after the hold was taken): the hold
   * is released in full and the generation deleted. Rare, so not batched; synchronous commit, so a crash cannot
   * bring back a hold that the crash recovery would then charge. False when it was no longer pending.
   */
  withdraw(generationId: number): Promise<boolean> {
    return withdrawPendingGeneration(this.opts.holdSql, generationId);
  }
}
