import { Queryable } from '../../src/core/billing/queryable';

/** Counts the statements sent through `inner`, so a test can tell which pool ran them, or that calls were batched. */
export function countingSql(inner: Queryable): Queryable & { statements: number } {
  const q = {
    statements: 0,
    query<T>(text: string, params?: unknown[]): Promise<T> {
      q.statements += 1;
      return inner.query<T>(text, params);
    },
  };
  return q;
}
