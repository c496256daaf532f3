/** Anything that runs SQL: a DataSource, or the EntityManager of an open transaction. */
export interface Queryable {
  query<T = unknown>(sql: string, params?: unknown[]): Promise<T>;
}
