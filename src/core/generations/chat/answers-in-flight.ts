import type { Logger } from '../../../logger';
import { GenerationLeases } from '../settlement/leases';

/** How often a running answer refreshes its lease (and a stream its delivered length). */
const LEASE_HEARTBEAT_MS = 2000;
/** How long an answer whose billing waits in the outbox keeps its lease fresh (its generation's deadline). */
const DEFERRED_HEARTBEAT_MS = 30 * 60_000;
/**
 * Least time between two statements that write streams' first output to their leases: a note waits at most this
 * long, and a burst of streams shares one statement instead of one each.
 */
const PROGRESS_NOTE_GAP_MS = 20;

interface OpenAnswer {
  generationId: number;
  abort: AbortController;
  done: Promise<unknown>;
  delivered: () => number;
  userId?: number;
}

/**
 * The chat answers this process is running: their leases kept fresh, a shutdown that waits, then aborts, and the
 * answers of an account that was just deleted, cut.
 */
export class AnswersInFlight {
  private readonly open = new Set<OpenAnswer>();
  /** One heartbeat for every open answer of the process: one statement per interval, however many there are. */
  private heartbeat?: NodeJS.Timeout;
  private beating = false;
  /** First outputs not yet written to their leases (generation id → delivered characters). */
  private readonly notes = new Map<number, number>();
  private notesDue = false;
  private lastNoteAt = 0;

  constructor(
    private readonly leases: GenerationLeases,
    private readonly log: Logger,
    private readonly heartbeatMs = LEASE_HEARTBEAT_MS,
    private readonly noteGapMs = PROGRESS_NOTE_GAP_MS,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /**
   * Tracks an answer until `done`, refreshing its lease with `delivered()` characters meanwhile. When `done` says
   * its billing was deferred (the database was away), the lease stays fresh until the outbox has settled it, so no
   * instance takes the answer for an abandoned one while its outcome waits here.
   */
  follow(generationId: number, abort: AbortController, done: Promise<unknown>, delivered: () => number = () => 0, userId?: number): void {
    const entry: OpenAnswer = { generationId, abort, done, delivered, userId };
    this.open.add(entry);
    this.heartbeat ??= setInterval(() => void this.beat(), this.heartbeatMs).unref();
    void done
      .then((billing) => {
        if ((billing as { deferred?: boolean } | undefined)?.deferred) this.keepFresh(generationId, delivered());
      })
      .finally(() => {
        this.open.delete(entry);
        if (this.open.size === 0 && this.heartbeat) {
          clearInterval(this.heartbeat);
          this.heartbeat = undefined;
        }
      })
      .catch(() => undefined);
  }

  /** Writes every open answer's delivered length to its lease in one statement; a beat still running is not doubled. */
  private async beat(): Promise<void> {
    if (this.beating || this.open.size === 0) return;
    this.beating = true;
    try {
      await this.leases.progressMany([...this.open].map((e) => ({ generationId: e.generationId, deliveredChars: e.delivered() })));
    } catch {
      // A failed beat is retried by the next one; the lease's age only matters after minutes.
    } finally {
      this.beating = false;
    }
  }

  /**
   * Writes a stream's delivered length to its lease (its first output) with the next progress statement: at once
   * when none went out in the last `noteGapMs`, else with the others that arrive until then, in one statement (5,000
   * streams opened at once made 5,000 UPDATEs on the pool settlements use). A failure is left to the heartbeat.
   */
  noteProgress(generationId: number, deliveredChars: number): void {
    this.notes.set(generationId, deliveredChars);
    if (this.notesDue) return;
    this.notesDue = true;
    const wait = this.lastNoteAt + this.noteGapMs - Date.now();
    if (wait > 0) setTimeout(() => this.writeNotes(), wait).unref();
    else setImmediate(() => this.writeNotes());
  }

  private writeNotes(): void {
    this.notesDue = false;
    this.lastNoteAt = Date.now();
    const entries = [...this.notes].map(([generationId, deliveredChars]) => ({ generationId, deliveredChars }));
    this.notes.clear();
    const write =
      entries.length === 1 ? this.leases.progress(entries[0].generationId, entries[0].deliveredChars) : this.leases.progressMany(entries);
    void write.catch(() => undefined);
  }

  /** Refreshes a deferred answer's lease until its generation is settled (the lease is gone) or its deadline. */
  private keepFresh(generationId: number, deliveredChars: number): void {
    const until = Date.now() + DEFERRED_HEARTBEAT_MS;
    const timer = setInterval(() => {
      if (Date.now() > until) return clearInterval(timer);
      void this.leases
        .refresh(generationId, deliveredChars)
        .then((pending) => {
          if (!pending) clearInterval(timer);
        })
        .catch(() => undefined);
    }, LEASE_HEARTBEAT_MS);
    timer.unref();
  }

  /**
   * Aborts the answers of an account that is being deleted: each is billed on what it delivered and its client gets
   * its end. Resolves once they were billed, or after `billMs` at the latest. @returns how many were cut
   */
  async cut(userId: number, billMs = 5000): Promise<number> {
    const cut = [...this.open].filter((e) => e.userId === userId);
    for (const e of cut) e.abort.abort();
    if (cut.length === 0) return 0;
    this.log.warn({ userId, cut: cut.length }, 'answers of a deleted account were cut');
    await Promise.race([Promise.allSettled(cut.map((e) => e.done)), new Promise<void>((r) => setTimeout(r, billMs).unref())]);
    return cut.length;
  }

  /** Whether this process runs an answer of the account. */
  runs(userId: number): boolean {
    for (const e of this.open) if (e.userId === userId) return true;
    return false;
  }

  /**
   * Lets open answers finish for up to `graceMs`, then aborts the rest; resolves once every one of them was billed
   * (or deferred), or after `graceMs + billMs` at the latest.
   */
  async drain(graceMs: number, billMs = 5000): Promise<void> {
    const all = () => Promise.allSettled([...this.open].map((e) => e.done));
    const timeout = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
    await Promise.race([all(), timeout(graceMs)]);
    if (this.open.size === 0) return;
    this.log.warn({ open: this.open.size }, 'aborting answers still open at shutdown; billed on what was delivered');
    for (const e of this.open) e.abort.abort();
    await Promise.race([all(), timeout(billMs)]);
  }
}
