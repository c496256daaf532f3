import pino, { Logger } from 'pino';

export type { Logger };

/** JSON logs; secrets never reach them (auth headers, cookies, passwords and tokens are redacted). */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'nebula-gen' },
    redact: {
      paths: [
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
      ],
      censor: '[redacted]',
    },
  });
}
