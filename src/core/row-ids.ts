/** The largest value of a PostgreSQL `integer` column: every serial id of ours is at most this. */
export const MAX_ROW_ID = 2_147_483_647;

/** Whether `n` can be one of our row ids; a larger number must never reach a query (PostgreSQL fails on it). */
export function isRowId(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= MAX_ROW_ID;
}
