import { DataSource, EntityManager } from 'typeorm';
import { AdminAuditEntryEntity } from '../../db/entities';
import type { AdminAuditEntry } from './actors';
import { AuditFilter, AuditPage, AuditQuery, AuditRecord } from './audit-query';

export { adminActors, type AdminActor, type AdminAuditEntry, type AdminDoor } from './actors';

/**
 * The append-only record of what admins did. `record` takes the action's transaction manager, so the row commits
 * (or rolls back) with the change it describes; a refused action records nothing.
 */
export class AdminAuditLog {
  private readonly query: AuditQuery;

  constructor(private readonly ds: DataSource) {
    this.query = new AuditQuery(ds);
  }

  /** One page, newest first; `cursor` is the previous page's `nextCursor`. */
  page(filter: AuditFilter, cursor: string | undefined, limit: number): Promise<AuditPage> {
    return this.query.page(filter, cursor, limit);
  }

  /** Every matching row, newest first (the CSV export). */
  each(filter: AuditFilter): AsyncGenerator<AuditRecord> {
    return this.query.each(filter);
  }

  async record(entry: AdminAuditEntry, manager?: EntityManager): Promise<void> {
    await (manager ?? this.ds.manager).getRepository(AdminAuditEntryEntity).insert({
      actorUserId: entry.actor.userId,
      actorLabel: entry.actor.label,
      door: entry.actor.door,
      action: entry.action,
      targetType: entry.target.type,
      targetId: String(entry.target.id),
      before: entry.before === undefined ? null : toJson(entry.before),
      after: entry.after === undefined ? null : toJson(entry.after),
    });
  }
}

/** Plain JSON (dates as ISO strings), stored as jsonb: an object, an array or a scalar. */
function toJson(value: unknown): object {
  return JSON.parse(JSON.stringify(value ?? null)) as object;
}
