import type { Logger } from '../../../logger';
import { Queryable } from '../../billing/queryable';
import { settleJournalSpilledTotal } from '../../ops/metrics';
import { withTimeout } from '../../ops/with-timeout';
import { DeferredOutcome } from './billing-outbox';

/** Where PostgreSQL's WAL stands: what is written, what is on disk, and which server run wrote it. */
export interface WalPosition {
  insert: bigint;
  flush: bigint;
  serverStartedAt: string;
}

/** Reads the WAL position; any session may call these functions. */
export async function readWalPosition(sql: Queryable): Promise<WalPosition> {
  const rows = await sql.query<{ insert: string; flush: string; started: string }[]>(
    `SELECT pg_current_wal_insert_lsn()::text AS insert, pg_current_wal_flush_lsn()::text AS flush,
            pg_postmaster_start_time()::text AS started`,
  );
  return { insert: parseLsn(rows[0].insert), flush: parseLsn(rows[0].flush), serverStartedAt: rows[0].started };
}

/**
 * SQLSTATEs of a server that will not tell its WAL position at all (as opposed to one that is down): no privilege
 * (42501), no such function (42883), or a managed service that does not support it (0A000).
 */
const REFUSED_PROBE = new Set(['42501', '42883', '0A000']);

function refusedProbe(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && REFUSED_PROBE.has(code);
}

/** `16/B374D848` → the WAL byte position as one number. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

export interface SettleJournalOptions {
  /** Reads the WAL position (on any pool: the probe writes nothing). */
  probe: () => Promise<WalPosition>;
  /** Where outcomes go when PostgreSQL may have lost them: the billing outbox, replayed until applied. */
  spill: (outcomes: DeferredOutcome[]) => Promise<void>;
  log: Logger;
  /** How often the WAL position is read while outcomes wait (default 25 ms). */
  tickMs?: number;
  /** A reading that takes longer counts as failed (default 2000 ms): a hung server is treated as a lost one. */
  probeTimeoutMs?: number;
}

interface Entry {
  outcome: DeferredOutcome;
  /** A WAL position read after the outcome committed: once the flush passes it, the outcome is on disk. */
  target?: bigint;
  /** The server run that took the commit; unknown when it committed before the journal's first reading. */
  serverStartedAt?: string;
}

/**
 * Settlements committed without waiting for the WAL flush, each kept in memory until PostgreSQL has it on disk.
 * When the server may have lost them (it crashed, restarted or cannot be read), they go to the billing outbox,
 * whose replay applies each once: the transitions are single-shot, so one that did survive changes nothing.
 * A crash of this process alone loses nothing (the commit is in the server's WAL buffers, flushed within
 * `wal_writer_delay`); only both crashing within that window can lose a charge, and then the lease recovery
 * settles the answer's generation, whose hold was committed synchronously.
 */
export class SettleJournal {
  private entries: Entry[] = [];
  private serverStartedAt: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private closed = false;
  private refusal: string | undefined;

  constructor(private readonly opts: SettleJournalOptions) {}

  /**
   * The server refuses to tell its WAL position (a managed database may hide it): nothing can be followed to disk,
   * so settlements must wait for the flush themselves from now on.
   */
  get refused(): boolean {
    return this.refusal !== undefined;
  }

  /** Outcomes not yet known to be on disk. */
  get waiting(): number {
    return this.entries.length;
  }

  /** Reads the server run now, so that the first outcomes already know it. */
  start(): void {
    void this.tickOnce();
  }

  /** Keeps an outcome whose commit returned without the WAL flush until it is on disk. */
  record(outcome: DeferredOutcome): void {
    if (this.closed || this.refusal !== undefined) {
      void this.spillAll([{ outcome }], this.refusal ?? 'the journal is closed');
      return;
    }
    this.entries.push({ outcome, serverStartedAt: this.serverStartedAt });
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.tickOnce();
    }, this.opts.tickMs ?? 25);
    this.timer.unref();
  }

  /** One reading of the WAL position; concurrent calls share it. */
  tickOnce(): Promise<void> {
    this.ticking ??= this.tick().finally(() => {
      this.ticking = undefined;
      if (this.entries.length > 0 && !this.closed && this.refusal === undefined) {
        this.timer ??= setTimeout(() => {
          this.timer = undefined;
          void this.tickOnce();
        }, this.opts.tickMs ?? 25);
        this.timer.unref();
      }
    });
    return this.ticking;
  }

  private async tick(): Promise<void> {
    // Only outcomes recorded before the reading was asked for are covered by its insert position.
    const asked = this.entries.slice();
    let position: WalPosition;
    try {
      position = await withTimeout(this.opts.probe(), this.opts.probeTimeoutMs ?? 2000);
    } catch (err) {
      if (refusedProbe(err) && this.refusal === undefined) {
        this.refusal = `the server refuses to tell its WAL position: ${(err as Error).message}`;
        this.opts.log.error(
          { reason: this.refusal },
          'the settle journal cannot follow the WAL: settlements now wait for the disk flush (as BILLING_SETTLE_COMMIT=sync)',
        );
      }
      if (asked.length > 0) await this.spillAll(asked, `the WAL position cannot be read: ${(err as Error).message}`);
      return;
    }
    const previous = this.serverStartedAt;
    this.serverStartedAt = position.serverStartedAt;
    const lost = asked.filter((e) => e.serverStartedAt !== position.serverStartedAt);
    if (lost.length > 0) {
      await this.spillAll(lost, previous === undefined ? 'committed before the first reading' : 'the database server restarted');
    }
    for (const e of asked) if (e.target === undefined && e.serverStartedAt === position.serverStartedAt) e.target = position.insert;
    this.entries = this.entries.filter((e) => e.target === undefined || e.target > position.flush);
  }

  private async spillAll(entries: Entry[], reason: string): Promise<void> {
    const gone = new Set(entries);
    this.entries = this.entries.filter((e) => !gone.has(e));
    settleJournalSpilledTotal.inc(entries.length);
    this.opts.log.warn({ outcomes: entries.length, reason }, 'settlements not known to be on disk go to the billing outbox');
    try {
      await this.opts.spill(entries.map((e) => e.outcome));
    } catch (err) {
      // Nothing durable is left: the lease recovery settles these answers' generations (their holds are on disk).
      this.opts.log.error({ err, outcomes: entries.length }, 'settlements could not be written to the billing outbox');
    }
  }

  /**
   * At shutdown: waits up to `waitMs` for the WAL flush to pass what still waits (the WAL writer flushes within
   * 3 × `wal_writer_delay`), then hands the rest to the outbox; replaying one that did reach the disk changes nothing.
   */
  async close(waitMs = 1000): Promise<void> {
    this.closed = true;
    const deadline = Date.now() + waitMs;
    while (this.entries.length > 0 && Date.now() < deadline) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      await this.tickOnce();
      if (this.entries.length > 0) await new Promise((r) => setTimeout(r, this.opts.tickMs ?? 25));
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.entries.length > 0) await this.spillAll(this.entries.slice(), 'not on disk at shutdown');
  }
}
