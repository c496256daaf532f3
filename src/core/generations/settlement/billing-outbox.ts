import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../logger';
import { Queryable } from '../../billing/queryable';
import { ProviderErrorKind } from '../../providers/types';
import { markCompleted, markFailed, Transition } from './lifecycle';

/** A chat outcome the database could not take when it happened; applied later, exactly once (the transitions are single-shot). */
export type DeferredOutcome =
  | {
      op: 'complete';
      generationId: number;
      text: string;
      metadata: Record<string, unknown>;
      cost: number;
      processingMs: number;
      /** What the vendor used and what that cost the operator (catalog/vendor-cost.ts). */
      vendorUsage?: Record<string, number>;
      vendorCostUsd?: number;
    }
  | { op: 'fail'; generationId: number; kind: string; message: string; processingMs: number };

export type ApplyOutcome = (outcome: DeferredOutcome) => Promise<unknown>;

/** The single-shot transition an outcome stands for; null when the generation was no longer pending. */
export function applyDeferredOutcome(db: Queryable, o: DeferredOutcome): Promise<Transition | null> {
  if (o.op === 'fail') return markFailed(db, o.generationId, o.kind as ProviderErrorKind, o.message, o.processingMs);
  const result = {
    resultKey: null,
    resultMime: null,
    resultText: o.text,
    metadata: o.metadata,
    seed: null,
    durationSeconds: null,
    vendorUsage: o.vendorUsage ?? null,
    vendorCostUsd: o.vendorCostUsd ?? null,
  };
  return markCompleted(db, o.generationId, result, o.cost, o.processingMs, null);
}

const LOG_FILE = 'billing.jsonl';
const REPLAY_PREFIX = 'billing.replaying-';

/**
 * An append-only file under DATA_DIR: it is the one durable place left when PostgreSQL itself is down. Each line
 * is flushed to disk before the client is answered. Replay (at start and on a timer) renames the file first, so
 * new outcomes go to a fresh one, applies every line, and appends back those that still fail.
 *
 * When the disk refuses them too (full, read-only), outcomes are kept in memory and applied by the same replay as
 * soon as the database takes them: the answers stay billable while the process lives.
 */
export class BillingOutbox {
  private readonly file: string;
  /** Outcomes neither the database nor the disk took. */
  private unsaved: DeferredOutcome[] = [];
  private diskRefused = false;
  private replaying: Promise<number> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dir: string,
    private readonly apply: ApplyOutcome,
    private readonly log: Logger,
  ) {
    this.file = path.join(dir, LOG_FILE);
  }

  add(outcome: DeferredOutcome): Promise<void> {
    return this.addAll([outcome]);
  }

  /** Appends outcomes with one flush to disk; when the disk refuses them, keeps them in memory (never throws). */
  async addAll(outcomes: DeferredOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    try {
      await this.write(outcomes);
      if (this.diskRefused) this.log.info('the billing outbox is written to disk again');
      this.diskRefused = false;
    } catch (err) {
      this.unsaved.push(...outcomes);
      if (!this.diskRefused)
        this.log.error(
          { err: (err as Error).message, kept: this.unsaved.length },
          'the disk refused the billing outbox: deferred billing is kept in memory until the database takes it',
        );
      this.diskRefused = true;
    }
  }

  private async write(outcomes: DeferredOutcome[]): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const handle = await fs.open(this.file, 'a');
    try {
      await handle.write(outcomes.map((o) => `${JSON.stringify(o)}\n`).join(''));
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** Outcomes waiting, in the file and in memory (for tests and metrics). */
  async pending(): Promise<number> {
    let count = this.unsaved.length;
    for (const file of await this.files()) count += (await this.readLines(file)).length;
    return count;
  }

  /** Applies every waiting outcome; returns how many were applied. Concurrent calls share one run. */
  replay(): Promise<number> {
    this.replaying ??= this.replayOnce().finally(() => (this.replaying = undefined));
    return this.replaying;
  }

  /** Replays every `intervalMs` while the process runs. */
  start(intervalMs: number): void {
    this.timer ??= setInterval(() => void this.replay().catch(() => undefined), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async files(): Promise<string[]> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    return names.filter((n) => n === LOG_FILE || n.startsWith(REPLAY_PREFIX)).map((n) => path.join(this.dir, n));
  }

  private async readLines(file: string): Promise<DeferredOutcome[]> {
    const text = await fs.readFile(file, 'utf8').catch(() => '');
    const out: DeferredOutcome[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        out.push(JSON.parse(line) as DeferredOutcome);
      } catch {
        // A line torn by a crash mid-write was never acknowledged to anyone.
      }
    }
    return out;
  }

  private async replayOnce(): Promise<number> {
    let applied = 0;
    const kept = this.unsaved;
    this.unsaved = [];
    const stillFailing: DeferredOutcome[] = [];
    for (const outcome of kept) {
      try {
        await this.apply(outcome);
        applied += 1;
      } catch {
        stillFailing.push(outcome);
      }
    }
    // Back to the disk if it takes them now, else to memory again.
    await this.addAll(stillFailing);
    // Leftovers of a replay interrupted by a crash are applied again: harmless, the transitions are single-shot.
    const exists = await fs.stat(this.file).then(
      (s) => s.size > 0,
      () => false,
    );
    if (exists) await fs.rename(this.file, path.join(this.dir, `${REPLAY_PREFIX}${Date.now()}-${randomBytes(4).toString('hex')}`));
    for (const file of (await this.files()).filter((f) => path.basename(f).startsWith(REPLAY_PREFIX))) {
      const failed: DeferredOutcome[] = [];
      for (const outcome of await this.readLines(file)) {
        try {
          await this.apply(outcome);
          applied += 1;
        } catch (err) {
          failed.push(outcome);
          this.log.debug({ err: (err as Error).message, generationId: outcome.generationId }, 'deferred billing still waits');
        }
      }
      await this.addAll(failed);
      await fs.rm(file, { force: true });
    }
    if (applied > 0) this.log.info({ applied }, 'deferred chat billing applied');
    return applied;
  }
}
