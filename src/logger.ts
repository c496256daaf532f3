import pino, { Logger } from 'pino';
import { errorWithoutParameters, REDACTED_PATHS } from './log-redaction';

export type { Logger };

/**
 * Readable lines in a terminal (stdout is a TTY), JSON otherwise (containers, files, log shippers); secrets never
 * reach them (auth headers, cookies, passwords, tokens, their hashes and database error parameters are redacted).
 */
/** Loaded only for a terminal: a service in a container never needs the pretty printer in memory. */
function prettyPrinter(): typeof import('pino-pretty') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a deferred, synchronous load
  return require('pino-pretty') as typeof import('pino-pretty');
}

export function createLogger(level: string, options: { pretty?: boolean } = {}): Logger {
  const readable = options.pretty ?? process.stdout.isTTY === true;
  const destination = readable
    ? prettyPrinter()({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' })
    : pino.destination(1);
  return pino(
    {
      level,
      base: { service: 'nebula-gen' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: errorWithoutParameters },
    },
    destination,
  );
}
