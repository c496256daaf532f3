import { isRefusedStatement } from '../../db/transaction';
import { GroupCommit } from '../billing/group-commit';
import { Queryable } from '../billing/queryable';
import { billingWaitSeconds } from '../ops/metrics';
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
   * if the server may have lost it.
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
      runBatch: (outcomes) => finishGenerations(opts.sql, outcomes),
      runOne: (outcome) => applyDeferredOutcome(opts.sql, outcome),
    });
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
    const done = await (this.finishes ? this.finishes.submit(outcome) : applyDeferredOutcome(this.opts.sql, outcome)).finally(timer);
    if (done) this.opts.journal?.record(outcome);
    return done;
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
