import { DataSource } from 'typeorm';

/** The tables that remember sign-in proofs already used, each by the hash of the proof, until it expires. */
export type SpentProofs = 'used_login_widgets' | 'used_id_tokens';

/**
 * Spends a sign-in proof: true the first time, false for every later use, on any instance (one INSERT against the
 * table's unique key). Expired entries are purged on the way: a proof past its expiry is refused by its own check.
 */
export async function spendOnce(ds: DataSource, table: SpentProofs, hash: string, expiresAtEpochSeconds: number): Promise<boolean> {
  await ds.query(`DELETE FROM ${table} WHERE expires_at < now()`);
  const rows: unknown[] = await ds.query(
    `INSERT INTO ${table} (hash, expires_at) VALUES ($1, to_timestamp($2)) ON CONFLICT (hash) DO NOTHING RETURNING hash`,
    [hash, expiresAtEpochSeconds],
  );
  return rows.length > 0;
}
