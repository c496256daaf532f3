/** A positive integer setting from the environment (`BENCH_CONCURRENCY=32`), or `fallback` when unset or invalid. */
export function intEnv(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
}
