import type { DataSource } from 'typeorm';
import { inTransaction } from '../../db/transaction';
import { NotFoundError } from '../accounts/errors';
import type { PlanDirectory } from '../accounts/plans';
import type { AdminActor, AuditRecorder } from '../admin/audit-port';
import { ParamError } from '../catalog';
import { decodeCursor, encodeCursor } from '../stats/history';
import { BroadcastFinishedError } from './errors';

/** Telegram's longest message, in UTF-16 code units (the text goes out as plain text, so nothing is parsed away). */
export const BROADCAST_MAX_LENGTH = 4096;
export const BROADCAST_LANGUAGES = ['en', 'ru'] as const;
export const BROADCAST_MAX_ACTIVE_DAYS = 365;

export interface BroadcastSegment {
  /** Plan slugs; absent: every plan. */
  plans?: string[];
  /** The bot language the user chose (English when never chosen); absent: any. */
  language?: (typeof BROADCAST_LANGUAGES)[number];
  /** Made a request (any door) within this many days; absent: anyone. */
  activeDays?: number;
}

export type BroadcastStatus = 'queued' | 'sending' | 'done' | 'canceled';

export interface BroadcastRecord {
  id: number;
  status: BroadcastStatus;
  text: string;
  segment: BroadcastSegment;
  total: number;
  sent: number;
  failed: number;
  blocked: number;
  /** Not yet sent (pending, or being sent this moment). */
  pending: number;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

interface BroadcastRow {
  id: number;
  status: BroadcastStatus;
  text: string;
  segment: { plans?: string[]; language?: 'en' | 'ru'; active_days?: number };
  total: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  sent: number;
  failed: number;
  blocked: number;
  pending: number;
}

// The recipient counts come from the rows: one source of truth, counted in one pass over (broadcast_id, status).
const SELECT = `SELECT b.id, b.status, b.text, b.segment, b.total, b.created_at, b.started_at, b.finished_at,
  c.sent, c.failed, c.blocked, c.pending
  FROM broadcasts b CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE r.status = 'sent')::int AS sent, count(*) FILTER (WHERE r.status = 'failed')::int AS failed,
           count(*) FILTER (WHERE r.status = 'blocked')::int AS blocked,
           count(*) FILTER (WHERE r.status IN ('pending', 'sending'))::int AS pending
      FROM broadcast_recipients r WHERE r.broadcast_id = b.id) c`;

const toRecord = (r: BroadcastRow): BroadcastRecord => ({
  id: r.id,
  status: r.status,
  text: r.text,
  segment: { plans: r.segment.plans, language: r.segment.language, activeDays: r.segment.active_days },
  total: r.total,
  sent: r.sent,
  failed: r.failed,
  blocked: r.blocked,
  pending: r.pending,
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

/**
 * The operator's broadcasts: made for a segment of the bot's users (one recipient row each, chosen at once),
 * listed with their progress, canceled. Sending is the BroadcastRunner's. Made and canceled ones are audited.
 */
export class BroadcastDesk {
  constructor(
    private readonly ds: DataSource,
    private readonly plans: PlanDirectory,
    private readonly audit: AuditRecorder,
    /** Told when a broadcast is made, so this instance's runner starts at once. */
    private readonly onQueued: () => void = () => undefined,
  ) {}

  /** @throws ParamError (empty or too long a text, an unknown plan, a bad segment) */
  async create(text: string, segment: BroadcastSegment, actor: AdminActor): Promise<BroadcastRecord> {
    await this.check(text, segment);
    const id = await inTransaction(this.ds, async (em) => {
      const stored = { plans: segment.plans, language: segment.language, active_days: segment.activeDays };
      const [row] = await em.query<{ id: number }[]>(
        `INSERT INTO broadcasts (text, segment, total, created_by) VALUES ($1, $2, 0, $3) RETURNING id`,
        [text, JSON.stringify(stored), actor.userId],
      );
      const chosen = await em.query<unknown[]>(
        `INSERT INTO broadcast_recipients (broadcast_id, user_id, chat_id)
         SELECT $1, u.id, u.telegram_id FROM users u LEFT JOIN user_settings s ON s.user_id = u.id
          WHERE u.telegram_id IS NOT NULL AND NOT u.is_blocked AND u.bot_blocked_at IS NULL
            AND ($2::text[] IS NULL OR u.plan_slug = ANY($2))
            AND ($3::text IS NULL OR COALESCE(s.language, 'en') = $3)
            AND ($4::int IS NULL OR EXISTS (
                  SELECT 1 FROM generations g WHERE g.user_id = u.id AND g.created_at > now() - make_interval(days => $4)))
         RETURNING user_id`,
        [row.id, segment.plans ?? null, segment.language ?? null, segment.activeDays ?? null],
      );
      await em.query('UPDATE broadcasts SET total = $2 WHERE id = $1', [row.id, chosen.length]);
      if (chosen.length === 0) await em.query(`UPDATE broadcasts SET status = 'done', finished_at = now() WHERE id = $1`, [row.id]);
      await this.audit.record(
        {
          actor,
          action: 'broadcast.create',
          target: { type: 'broadcast', id: row.id },
          after: { text, segment: stored, total: chosen.length },
        },
        em,
      );
      return row.id;
    });
    this.onQueued();
    return this.get(id);
  }

  /** @throws NotFoundError */
  async get(id: number): Promise<BroadcastRecord> {
    const [row] = await this.ds.query<BroadcastRow[]>(`${SELECT} WHERE b.id = $1`, [id]);
    if (!row) throw new NotFoundError('Broadcast');
    return toRecord(row);
  }

  /** Newest first. @throws ParamError (a bad cursor) */
  async list(limit: number, cursor?: string): Promise<{ items: BroadcastRecord[]; nextCursor: string | null }> {
    const before = cursor ? decodeCursor(cursor) : null;
    const rows = await this.ds.query<BroadcastRow[]>(`${SELECT} WHERE ($1::int IS NULL OR b.id < $1) ORDER BY b.id DESC LIMIT $2`, [
      before,
      limit + 1,
    ]);
    const items = rows.slice(0, limit).map(toRecord);
    return { items, nextCursor: rows.length > limit ? encodeCursor(items[items.length - 1]!.id) : null };
  }

  /** Stops it: recipients not yet sent are canceled (one being sent this moment still goes). @throws NotFoundError, BroadcastFinishedError */
  async cancel(id: number, actor: AdminActor): Promise<BroadcastRecord> {
    await inTransaction(this.ds, async (em) => {
      const [row] = await em.query<{ status: BroadcastStatus }[]>('SELECT status FROM broadcasts WHERE id = $1 FOR UPDATE', [id]);
      if (!row) throw new NotFoundError('Broadcast');
      if (row.status === 'done' || row.status === 'canceled') throw new BroadcastFinishedError(row.status);
      await em.query(`UPDATE broadcasts SET status = 'canceled', finished_at = now() WHERE id = $1`, [id]);
      const [{ canceled }] = await em.query<{ canceled: number }[]>(
        `WITH c AS (UPDATE broadcast_recipients SET status = 'canceled', updated_at = now() WHERE broadcast_id = $1 AND status = 'pending' RETURNING 1)
         SELECT count(*)::int AS canceled FROM c`,
        [id],
      );
      await this.audit.record(
        {
          actor,
          action: 'broadcast.cancel',
          target: { type: 'broadcast', id },
          before: { status: row.status },
          after: { status: 'canceled', canceled },
        },
        em,
      );
    });
    return this.get(id);
  }

  private async check(text: string, segment: BroadcastSegment): Promise<void> {
    if (text.trim().length === 0) throw new ParamError('text', 'the text is empty');
    if (text.length > BROADCAST_MAX_LENGTH)
      throw new ParamError('text', `Telegram takes at most ${BROADCAST_MAX_LENGTH} characters in a message; this text has ${text.length}`);
    if (segment.plans) {
      const known = await this.plans.all();
      const unknown = segment.plans.find((p) => !known.has(p));
      if (unknown !== undefined) throw new ParamError('segment.plans', `no plan is called "${unknown}"`);
    }
  }
}
