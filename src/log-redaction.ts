import pino from 'pino';

/** Paths of log fields that never reach a log line: credentials, their hashes, one-time tokens and links. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.key',
  '*.hash',
  '*.secret',
  '*.password_hash',
  '*.passwordHash',
  '*.key_hash',
  '*.keyHash',
  '*.token_hash',
  '*.tokenHash',
  '*.webhookSecret',
  '*.jwtSecret',
  '*.apiKeyPepper',
];

type SerializedError = ReturnType<typeof pino.stdSerializers.err> & Record<string, unknown>;

/**
 * pino's error serializer without the values a database error carries: TypeORM's QueryFailedError and the pg
 * driver error hold the statement's parameters (password and key hashes, tokens) and `detail` quotes row values.
 */
export function errorWithoutParameters(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const out = pino.stdSerializers.err(err) as SerializedError;
  delete out.parameters;
  delete out.detail;
  const driver = out.driverError as Record<string, unknown> | undefined;
  if (driver && typeof driver === 'object') {
    const { parameters: _p, detail: _d, ...rest } = driver;
    out.driverError = rest;
  }
  return out;
}
