import type { DataSource } from 'typeorm';
import type { Logger } from '../../logger';
import type { BroadcastSender, BroadcastSendOutcome } from './ports';

export interface BroadcastRunnerOptions {
  /** Messages per second over every broadcast (Telegram allows about 30 to different chats). */
  perSecond: number;
  /** How often an idle runner looks for work another instance queued (its own work wakes it at once). */
  pollMs?: number;
  /** A claim older than this was left by a process that died mid-send. */
  claimTtlMs?: number;
}

interface Claimed {
  broadcastId: number;
  userId: number;
  chatId: number;
  text: string;
}

const INTERRUPTED = 'interrupted: the sending process stopped before Telegram answered; not sent again (at most once)';

/**
 * Sends the open broadcasts, one recipient at a time under the rate, oldest broadcast first. Each recipient is
 * claimed in PostgreSQL (pending → sending, committed) before the call to Telegram and settled after it, so a
 * restart resumes with the rest and never sends a message twice; a claim a dead process left behind is failed as
 * interrupted rather than risk a second copy. A 429 puts the recipient back and pauses all sending for
 * `retry_after`. Several instances may run it: claims use SKIP LOCKED (the rate is then per instance).
 */
export class BroadcastRunner {
  private sender: BroadcastSender | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private lastSendAt = 0;
  private lastSweepAt = 0;

  constructor(
    private readonly ds: DataSource,
    private readonly log: Logger,
    private readonly options: BroadcastRunnerOptions,
  ) {}

  /** Starts sending through `sender` (the bot, once it is attached). */
  start(sender: BroadcastSender): void {
    this.sender = sender;
    if (this.running) return;
    // A (re)start first fails what a dead process left claimed.
    this.lastSweepAt = 0;
    this.running = true;
    this.loop = this.run();
  }

  /** Finishes the message in flight, then stops. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  /** Work was queued here: look now rather than at the next poll. */
  kick(): void {
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      let pauseMs = 0;
      try {
        await this.failAbandonedClaims();
        const claimed = await this.claimNext();
        if (!claimed) {
          await this.idle(this.options.pollMs ?? 5000);
          continue;
        }
        await this.pace();
        const outcome = await this.send(claimed);
        await this.settle(claimed, outcome);
        if (outcome.kind === 'retry') pauseMs = Math.max(1, outcome.afterSeconds) * 1000;
      } catch (err) {
        this.log.warn({ err }, 'broadcast step failed; retrying shortly');
        pauseMs = 2000;
      }
      if (pauseMs > 0) await this.idle(pauseMs);
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async pace(): Promise<void> {
    const gap = 1000 / this.options.perSecond - (Date.now() - this.lastSendAt);
    if (gap > 0) await new Promise((r) => setTimeout(r, gap));
    this.lastSendAt = Date.now();
  }

  private async send(c: Claimed): Promise<BroadcastSendOutcome> {
    try {
      return await this.sender!.send(c.chatId, c.text);
    } catch (err) {
      return { kind: 'failed', reason: err instanceof Error ? err.message : String(err) };
    }
  }

  private async failAbandonedClaims(): Promise<void> {
    if (Date.now() - this.lastSweepAt < 30_000) return;
    this.lastSweepAt = Date.now();
    await this.ds.query(
      `UPDATE broadcast_recipients SET status = 'failed', error = $2, updated_at = now()
        WHERE status = 'sending' AND claimed_at < now() - make_interval(secs => $1)`,
      [(this.options.claimTtlMs ?? 120_000) / 1000, INTERRUPTED],
    );
  }

  /** The next recipient of the oldest open broadcast, claimed; finishes broadcasts with nobody left. */
  private async claimNext(): Promise<Claimed | undefined> {
    const open = await this.ds.query<{ id: number; text: string }[]>(
      `SELECT id, text FROM broadcasts WHERE status IN ('queued', 'sending') ORDER BY id`,
    );
    for (const b of open) {
      await this.ds.query(`UPDATE broadcasts SET status = 'sending', started_at = now() WHERE id = $1 AND status = 'queued'`, [b.id]);
      // A plain SELECT over the UPDATE: TypeORM answers a bare UPDATE … RETURNING with [rows, count].
      const [row] = await this.ds.query<{ user_id: number; chat_id: string }[]>(
        `WITH next AS (
           SELECT user_id FROM broadcast_recipients WHERE broadcast_id = $1 AND status = 'pending'
            ORDER BY user_id LIMIT 1 FOR UPDATE SKIP LOCKED)
         , claimed AS (
           UPDATE broadcast_recipients r SET status = 'sending', claimed_at = now(), updated_at = now()
             FROM next WHERE r.broadcast_id = $1 AND r.user_id = next.user_id
              AND EXISTS (SELECT 1 FROM broadcasts b WHERE b.id = $1 AND b.status = 'sending')
           RETURNING r.user_id, r.chat_id)
         SELECT user_id, chat_id FROM claimed`,
        [b.id],
      );
      if (row) return { broadcastId: b.id, userId: row.user_id, chatId: Number(row.chat_id), text: b.text };
      await this.ds.query(
        `UPDATE broadcasts SET status = 'done', finished_at = now() WHERE id = $1 AND status = 'sending'
            AND NOT EXISTS (SELECT 1 FROM broadcast_recipients WHERE broadcast_id = $1 AND status IN ('pending', 'sending'))`,
        [b.id],
      );
    }
    return undefined;
  }

  private async settle(c: Claimed, outcome: BroadcastSendOutcome): Promise<void> {
    const set = (status: string, error: string | null) =>
      this.ds.query(
        `UPDATE broadcast_recipients SET status = $3::text, error = $4::text, claimed_at = CASE WHEN $3::text = 'pending' THEN NULL ELSE claimed_at END,
                updated_at = now() WHERE broadcast_id = $1 AND user_id = $2 AND status = 'sending'`,
        [c.broadcastId, c.userId, status, error],
      );
    if (outcome.kind === 'sent') await set('sent', null);
    else if (outcome.kind === 'failed') await set('failed', outcome.reason.slice(0, 500));
    // Telegram sent nothing on a 429: the recipient waits its turn again.
    else if (outcome.kind === 'retry') await set('pending', null);
    else {
      await set('blocked', outcome.reason.slice(0, 500));
      await this.ds.query('UPDATE users SET bot_blocked_at = now() WHERE id = $1', [c.userId]);
    }
  }
}
