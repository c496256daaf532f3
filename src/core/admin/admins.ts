import { DataSource, EntityManager } from 'typeorm';
import { UserEntity } from '../../db/entities';
import { AdminActor, AdminAuditLog } from './audit-log';

/**
 * Marks the accounts linked to the Telegram ids of ADMIN_CHAT_IDS as admins, once at start (synced, not computed:
 * `users.is_admin` is the one truth every door reads). It only grants: taking an id out of the list does not
 * revoke, `user:admin --off` does. Returns the ids of the accounts it made admins.
 */
export async function syncConfiguredAdmins(ds: DataSource, telegramIds: readonly number[]): Promise<number[]> {
  const ids = telegramIds.filter((id) => id > 0).map(String);
  if (ids.length === 0) return [];
  const result = await ds
    .createQueryBuilder()
    .update(UserEntity)
    .set({ isAdmin: true })
    .where('telegram_id = ANY(:ids::bigint[]) AND NOT is_admin', { ids })
    .returning('id')
    .execute();
  const rows = result.raw as { id: number }[];
  return rows.map((r) => r.id);
}

/** Turns an account's admin flag on or off, audited in the same transaction (`user.admin`). False: no such user. */
export async function setAdmin(ds: DataSource, audit: AdminAuditLog, actor: AdminActor, userId: number, on: boolean): Promise<boolean> {
  return ds.transaction(async (em: EntityManager) => {
    const user = await em.getRepository(UserEntity).findOne({ where: { id: userId }, lock: { mode: 'pessimistic_write' } });
    if (!user) return false;
    if (user.isAdmin !== on) {
      await em.getRepository(UserEntity).update({ id: userId }, { isAdmin: on });
      await audit.record(
        { actor, action: 'user.admin', target: { type: 'user', id: userId }, before: { is_admin: user.isAdmin }, after: { is_admin: on } },
        em,
      );
    }
    return true;
  });
}
