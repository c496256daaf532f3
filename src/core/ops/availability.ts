/** Error codes and texts that mean "the database cannot be reached right now" rather than "the query is wrong". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
// SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, crash, cannot connect now), 53300 (too many connections).
const SQLSTATES = /^(08...|57P0[123]|53300)$/;
const TEXTS = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'Connection is not established',
  'terminating connection',
  'the database system is',
  'Client has encountered a connection error',
  'Cannot use a pool after calling end',
];

/** Seconds a client should wait before retrying while the database is away. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** True when `err` (or the driver error it wraps) says the database is unreachable: answer 503, not 500. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as Record<string, unknown> | undefined, depth = 0; e && depth < 4; depth++) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && (NETWORK_CODES.has(code) || SQLSTATES.test(code))) return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (TEXTS.some((t) => message.includes(t))) return true;
    e = (e.driverError ?? e.cause) as Record<string, unknown> | undefined;
  }
  return false;
}
