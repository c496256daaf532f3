import { DataSource } from 'typeorm';
import { RefusedRequestEntity } from '../../db/entities/refused-request.entity';
import type { Logger } from '../../logger';
import { ParamError } from '../catalog/errors';
import { isRowId } from '../row-ids';

/** A call the service refused before running anything: a plan or key scope (403), money (402) or a limit (429). */
export interface Refusal {
  userId: number;
  door: 'web' | 'api' | 'bot';
  apiKeyId: number | null;
  /** `POST /v1/chat/completions`: the method and path, without the query. */
  route: string;
  modelSlug: string | null;
  status: number;
  error: string;
  message: string;
}

/** One row of GET /api/v2/user/refusals. */
export interface RefusalView {
  id: number;
  created_at: string;
  last_at: string;
  /** How many identical refusals this row stands for (within about a second of each other). */
  count: number;
  door: string;
  api_key_id: number | null;
  route: string;
  model_slug: string | null;
  status: number;
  error: string;
  message: string;
}

export interface RefusalQuery {
  /** Only this key's refusals. */
  keyId?: number;
  /** The reader is a restricted API key: only its own refusals, whatever the other filters say. */
  onlyKey?: number;
  status?: number;
  from?: Date;
  to?: Date;
  cursor?: string;
  limit?: number;
}

export interface RefusalPage {
  items: RefusalView[];
  next_cursor: string | null;
}

const MAX_TEXT = 500;
const MAX_PENDING = 2000;

const encodeCursor = (id: number) => Buffer.from(`r:${id}`).toString('base64url');

function decodeCursor(cursor: string): number {
  const m = /^r:(\d{1,10})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const id = m ? Number(m[1]) : NaN;
  if (!isRowId(id)) throw new ParamError('cursor', 'cursor is not valid: pass the next_cursor of the previous page');
  return id;
}

interface Pending {
  refusal: Refusal;
  count: number;
  first: Date;
  last: Date;
}

/**
 * Refused calls, kept for the account's request log. Recording never waits on the database: refusals are gathered
 * in memory and written about once a second in one statement, identical ones as one row with a count (a client
 * hammering a limit costs one row per second, not one per call). A database outage drops them, with a debug line:
 * this is a log for the account, not the books.
 */
export class RefusalLog {
  private pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ds: DataSource,
    private readonly log: Logger,
    private readonly flushMs = 1000,
  ) {}

  record(refusal: Refusal): void {
    const r: Refusal = { ...refusal, route: refusal.route.slice(0, 200), message: refusal.message.slice(0, MAX_TEXT) };
    const key = JSON.stringify([r.userId, r.door, r.apiKeyId, r.route, r.modelSlug, r.status, r.error, r.message]);
    const now = new Date();
    const seen = this.pending.get(key);
    if (seen) {
      seen.count += 1;
      seen.last = now;
    } else if (this.pending.size < MAX_PENDING) {
      this.pending.set(key, { refusal: r, count: 1, first: now, last: now });
    }
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
  }

  /** Writes what was recorded so far (tests and shutdown call it; otherwise a timer does). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = this.flushing.then(() => (batch.length > 0 ? this.write(batch) : undefined));
    return this.flushing;
  }

  private async write(batch: Pending[]): Promise<void> {
    const column = <T>(pick: (p: Pending) => T) => batch.map(pick);
    try {
      await this.ds.query(
        `INSERT INTO refused_requests (user_id, door, api_key_id, route, model_slug, status, error, message, count, created_at, last_at)
         SELECT u, d, k, r, m, s, e, msg, c, f, l
           FROM unnest($1::int[], $2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[], $9::int[],
                       $10::timestamptz[], $11::timestamptz[]) WITH ORDINALITY AS x(u, d, k, r, m, s, e, msg, c, f, l, n)
          WHERE EXISTS (SELECT 1 FROM users WHERE id = x.u)
          ORDER BY x.n`,
        [
          column((p) => p.refusal.userId),
          column((p) => p.refusal.door),
          column((p) => p.refusal.apiKeyId),
          column((p) => p.refusal.route),
          column((p) => p.refusal.modelSlug),
          column((p) => p.refusal.status),
          column((p) => p.refusal.error),
          column((p) => p.refusal.message),
          column((p) => p.count),
          column((p) => p.first.toISOString()),
          column((p) => p.last.toISOString()),
        ],
      );
    } catch (err) {
      this.log.debug({ err: (err as Error).message, refusals: batch.length }, 'refused calls not recorded');
    }
  }

  /** The account's refused calls, newest first, with cursor pagination. */
  async list(userId: number, query: RefusalQuery = {}): Promise<RefusalPage> {
    const limit = Math.min(Math.max(query.limit ?? 20, 1), 100);
    const qb = this.ds.getRepository(RefusedRequestEntity).createQueryBuilder('r').where('r.user_id = :userId', { userId });
    if (query.onlyKey !== undefined) qb.andWhere('r.api_key_id = :onlyKey', { onlyKey: query.onlyKey });
    if (query.keyId !== undefined) qb.andWhere('r.api_key_id = :keyId', { keyId: query.keyId });
    if (query.status !== undefined) qb.andWhere('r.status = :status', { status: query.status });
    if (query.from) qb.andWhere('r.last_at >= :from', { from: query.from });
    if (query.to) qb.andWhere('r.created_at < :to', { to: query.to });
    if (query.cursor) qb.andWhere('r.id < :before', { before: decodeCursor(query.cursor) });
    const rows = await qb
      .orderBy('r.id', 'DESC')
      .limit(limit + 1)
      .getMany();
    const page = rows.slice(0, limit);
    return {
      items: page.map(toView),
      next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1].id) : null,
    };
  }

  /** Maintenance: refusals older than `days` go. @returns how many */
  async purgeOlderThan(days: number): Promise<number> {
    const rows: { n: number }[] = await this.ds.query(
      `WITH gone AS (DELETE FROM refused_requests WHERE last_at < now() - make_interval(days => $1) RETURNING 1) SELECT count(*)::int AS n FROM gone`,
      [days],
    );
    return rows[0]?.n ?? 0;
  }
}

function toView(r: RefusedRequestEntity): RefusalView {
  return {
    id: r.id,
    created_at: r.createdAt.toISOString(),
    last_at: r.lastAt.toISOString(),
    count: r.count,
    door: r.door,
    api_key_id: r.apiKeyId,
    route: r.route,
    model_slug: r.modelSlug,
    status: r.status,
    error: r.error,
    message: r.message,
  };
}
