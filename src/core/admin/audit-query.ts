import { DataSource, SelectQueryBuilder } from 'typeorm';
import { AdminAuditEntryEntity } from '../../db/entities';
import type { AdminActor } from './actors';

/** What to look for in the audit log; every field narrows. */
export interface AuditFilter {
  /** An account id (its actions at any door) or a door's label (`web:12`, `bot:12345`, `cli`). */
  actor?: string;
  /** An action (`user.grant`), or every action of an area with a trailing `.*` (`user.*`). */
  action?: string;
  targetType?: string;
  targetId?: string;
  /** Created at or after. */
  from?: Date;
  /** Created before. */
  to?: Date;
}

export interface AuditRecord {
  id: string;
  actor: AdminActor;
  action: string;
  target: { type: string; id: string };
  before: unknown;
  after: unknown;
  createdAt: Date;
}

export interface AuditPage {
  items: AuditRecord[];
  nextCursor: string | null;
}

const CURSOR = /^[1-9][0-9]{0,18}$/;

/** Reads the audit log, newest first. */
export class AuditQuery {
  constructor(private readonly ds: DataSource) {}

  /** One page; `cursor` is the previous page's `nextCursor` (an unreadable one starts from the newest). */
  async page(filter: AuditFilter, cursor: string | undefined, limit: number): Promise<AuditPage> {
    const q = this.filtered(filter).take(limit + 1);
    if (cursor && CURSOR.test(cursor)) q.andWhere('a.id < :cursor', { cursor });
    const rows = await q.getMany();
    const items = rows.slice(0, limit).map(toRecord);
    return { items, nextCursor: rows.length > limit ? items[items.length - 1].id : null };
  }

  /** Every matching row, newest first, read in batches (the CSV export). */
  async *each(filter: AuditFilter, batch = 1000): AsyncGenerator<AuditRecord> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.page(filter, cursor, batch);
      yield* page.items;
      if (!page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  private filtered(f: AuditFilter): SelectQueryBuilder<AdminAuditEntryEntity> {
    const q = this.ds.getRepository(AdminAuditEntryEntity).createQueryBuilder('a').orderBy('a.id', 'DESC');
    if (f.actor !== undefined) {
      if (/^[1-9][0-9]{0,9}$/.test(f.actor) && Number(f.actor) <= 2_147_483_647)
        q.andWhere('a.actorUserId = :actorId', { actorId: Number(f.actor) });
      else q.andWhere('a.actorLabel = :actorLabel', { actorLabel: f.actor });
    }
    if (f.action !== undefined) {
      if (f.action.endsWith('.*')) q.andWhere('starts_with(a.action, :prefix)', { prefix: f.action.slice(0, -1) });
      else q.andWhere('a.action = :action', { action: f.action });
    }
    if (f.targetType !== undefined) q.andWhere('a.targetType = :targetType', { targetType: f.targetType });
    if (f.targetId !== undefined) q.andWhere('a.targetId = :targetId', { targetId: f.targetId });
    if (f.from) q.andWhere('a.createdAt >= :from', { from: f.from });
    if (f.to) q.andWhere('a.createdAt < :to', { to: f.to });
    return q;
  }
}

function toRecord(row: AdminAuditEntryEntity): AuditRecord {
  return {
    id: String(row.id),
    actor: { userId: row.actorUserId, door: row.door, label: row.actorLabel },
    action: row.action,
    target: { type: row.targetType, id: row.targetId },
    before: row.before,
    after: row.after,
    createdAt: row.createdAt,
  };
}
