import { DataSource } from 'typeorm';

/**
 * Closed reservations (settled or released) are kept this long, then purged: far beyond any retry of the work they
 * held for (idempotency records and upstream timeouts are hours). The ledger keeps the money trail: its rows are
 * unique per (user, kind, reference), so a reference replayed after the purge still cannot be charged twice.
 */
export const CLOSED_RESERVATIONS_KEPT_DAYS = 30;

/** Deletes closed reservations older than `keptDays`, `batchSize` rows per statement; returns how many. */
export async function purgeClosedReservations(
  ds: DataSource,
  { keptDays = CLOSED_RESERVATIONS_KEPT_DAYS, batchSize = 5_000, budgetMs = 60_000 } = {},
): Promise<number> {
  const stopAt = Date.now() + budgetMs;
  let purged = 0;
  for (;;) {
    const rows = await ds.query<{ n: number }[]>(
      `WITH gone AS (
         DELETE FROM token_reservations WHERE id IN (
           SELECT id FROM token_reservations
            WHERE status <> 'reserved' AND updated_at < now() - make_interval(days => $1)
            LIMIT $2)
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [keptDays, batchSize],
    );
    purged += rows[0].n;
    if (rows[0].n < batchSize || Date.now() >= stopAt) return purged;
  }
}
