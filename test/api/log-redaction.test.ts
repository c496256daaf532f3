// Nothing secret reaches a log line: credentials and their hashes are redacted, database errors lose their
// parameters, and without SMTP the mail body (a reset or verification link) is logged only outside production.
import { Writable } from 'node:stream';
import pino from 'pino';
import { LogMailer } from '../../src/core/accounts/mailer';
import { errorWithoutParameters, REDACTED_PATHS } from '../../src/log-redaction';
import { createTestDatabase, TestDatabase } from '../support/databases';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = pino({ redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: { err: errorWithoutParameters } }, sink);
  return { log, text: () => lines.join('') };
}

test('a failed query logged with its error shows no parameter (hashes stay out)', async () => {
  const { log, text } = capture();
  const argonHash = '$argon2id$v=19$m=65536,t=3,p=4$c2VjcmV0c2FsdA$bm90LWEtcmVhbC1oYXNo';
  const keyHash = 'f'.repeat(64);
  let failure: unknown;
  try {
    // A unique violation whose detail and parameters would quote the values.
    await db.dataSource.query(`INSERT INTO users (name, email, password_hash, next_refill_at) VALUES ('a', $2, $1, now())`, [
      argonHash,
      'dup@example.com',
    ]);
    await db.dataSource.query(`INSERT INTO users (name, email, password_hash, next_refill_at) VALUES ('b', $2, $1, now())`, [
      keyHash,
      'dup@example.com',
    ]);
  } catch (err) {
    failure = err;
  }
  expect(failure).toBeDefined();
  log.error({ err: failure }, 'request failed');
  const line = text();
  expect(line).toContain('request failed');
  expect(line).toContain('duplicate key');
  expect(line).not.toContain(keyHash);
  expect(line).not.toContain('dup@example.com');
  expect(line).not.toContain('argon2');
});

test('credential fields and their hashes are redacted wherever they appear one level down', () => {
  const { log, text } = capture();
  log.info(
    {
      user: { passwordHash: 'h1', password_hash: 'h2', keyHash: 'h3', tokenHash: 'h4' },
      body: { token: 't1', refresh_token: 't2' },
      widget: { hash: 'h5' },
    },
    'x',
  );
  for (const secret of ['h1', 'h2', 'h3', 'h4', 't1', 't2', 'h5']) expect(text()).not.toContain(`"${secret}"`);
});

test('without SMTP, the mail body is logged outside production only', async () => {
  const mail = { to: 'a@example.com', subject: 'Reset your password', text: 'Open https://x/reset-password?token=SECRETTOKEN' };
  const prod = capture();
  await new LogMailer(prod.log, false).send(mail);
  expect(prod.text()).toContain('SMTP_URL is not set');
  expect(prod.text()).not.toContain('SECRETTOKEN');
  expect(prod.text()).not.toContain('a@example.com');
  const dev = capture();
  await new LogMailer(dev.log, true).send(mail);
  expect(dev.text()).toContain('SECRETTOKEN');
});
