import { settleCtes } from '../billing/ledger';
import { Queryable } from '../billing/queryable';

/**
 * Takes back a pending generation that never reached the vendor (its request was refused after the hold was made,
 * e.g. by the rate limit checked alongside it): the hold is released in full (a `release` ledger row next to its
 * `reserve`), and the generation row and its lease are deleted, so the refusal leaves no history entry. One
 * statement; single-shot like every transition.
 */
export async function withdrawPendingGeneration(db: Queryable, id: number): Promise<boolean> {
  const rows = await db.query<{ withdrawn: number | null }[]>(
    `WITH g AS (DELETE FROM generations WHERE id = $1 AND status = 'pending' RETURNING id),
     lease AS (DELETE FROM generation_leases WHERE generation_id = $1 AND EXISTS (SELECT 1 FROM g)),
     ${settleCtes(`('gen:' || $1::int)`, '0', `'released'`, 'EXISTS (SELECT 1 FROM g)')}
     SELECT (SELECT id FROM g) AS withdrawn`,
    [id],
  );
  return rows[0]?.withdrawn !== null && rows[0]?.withdrawn !== undefined;
}
