import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { SmtpError, SmtpMailer } from '../../src/core/accounts/smtp-mailer';
import { MAIL_SEND, QueuedMailer, startMailWorker } from '../../src/jobs/mail';
import { createBoss } from '../../src/jobs/boss';
import pino from 'pino';
import { createTestDatabase } from '../support/databases';
import { waitUntil } from '../support/wait';

interface Session {
  commands: string[];
  data: string;
}

/** A minimal SMTP server speaking RFC 5321 replies; `reject` makes one command fail with a 550. */
async function fakeSmtp(options: { reject?: string; extensions?: string[] } = {}) {
  const sessions: Session[] = [];
  const server = net.createServer((socket) => {
    const session: Session = { commands: [], data: '' };
    sessions.push(session);
    let buffer = '';
    let inData = false;
    socket.write('220 fake.test ESMTP ready\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          session.data = buffer.slice(0, end + 2);
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write('250 2.0.0 queued\r\n');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        session.commands.push(line);
        const verb = line.split(/[ :]/)[0].toUpperCase();
        if (options.reject && verb === options.reject) socket.write('550 5.1.1 mailbox unavailable\r\n');
        else if (verb === 'EHLO')
          socket.write(['250-fake.test', ...(options.extensions ?? []).map((e) => `250-${e}`), '250 8BITMIME'].join('\r\n') + '\r\n');
        else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 OK\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { sessions, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test('delivers a UTF-8 text mail with an encoded non-ASCII sender name', async () => {
  const smtp = await fakeSmtp();
  try {
    const mailer = new SmtpMailer(`smtp://127.0.0.1:${smtp.port}`, 'Nébula Сервис <no-reply@example.com>');
    await mailer.send({ to: 'ann@example.com', subject: 'Сброс пароля', text: 'Ссылка: https://example.com/reset?token=abc\n' });
    const session = smtp.sessions[0];
    expect(session.commands).toContain('MAIL FROM:<no-reply@example.com>');
    expect(session.commands).toContain('RCPT TO:<ann@example.com>');
    const from = /^From: (.*)$/m.exec(session.data)?.[1] ?? '';
    expect(from).toMatch(/^=\?UTF-8\?[BQ]\?.+\?= <no-reply@example.com>$/);
    expect(/^Subject: =\?UTF-8\?/m.test(session.data)).toBe(true);
  } finally {
    await smtp.close();
  }
});

test('a refused recipient rejects with SmtpError', async () => {
  const smtp = await fakeSmtp({ reject: 'RCPT' });
  try {
    const mailer = new SmtpMailer(`smtp://127.0.0.1:${smtp.port}`, 'no-reply@example.com');
    await expect(mailer.send({ to: 'nobody@example.com', subject: 's', text: 't' })).rejects.toBeInstanceOf(SmtpError);
  } finally {
    await smtp.close();
  }
});

test('credentials are never sent over an unencrypted connection when TLS is required', async () => {
  const smtp = await fakeSmtp({ extensions: ['AUTH PLAIN LOGIN'] });
  try {
    const mailer = new SmtpMailer(`smtp://user:secret@127.0.0.1:${smtp.port}?requireTLS=true`, 'no-reply@example.com', { timeoutMs: 2000 });
    await expect(mailer.send({ to: 'ann@example.com', subject: 's', text: 't' })).rejects.toBeInstanceOf(SmtpError);
    expect(smtp.sessions[0].commands.some((c) => c.startsWith('AUTH'))).toBe(false);
  } finally {
    await smtp.close();
  }
});

test('an unreachable server fails instead of hanging', async () => {
  const mailer = new SmtpMailer('smtp://127.0.0.1:1', 'no-reply@example.com', { timeoutMs: 2000 });
  await expect(mailer.send({ to: 'ann@example.com', subject: 's', text: 't' })).rejects.toBeInstanceOf(SmtpError);
});

test('mail is a durable job: queued by the request, delivered by the worker', async () => {
  const smtp = await fakeSmtp();
  const db = await createTestDatabase();
  const { boss, quiet } = createBoss(db.url, pino({ level: 'silent' }));
  try {
    await boss.start();
    const transport = new SmtpMailer(`smtp://127.0.0.1:${smtp.port}`, 'no-reply@example.com');
    await boss.createQueue(MAIL_SEND);
    const mailer = new QueuedMailer(boss, transport);
    await mailer.send({ to: 'queued@example.com', subject: 'Queued', text: 'hello' });
    const [job] = await db.dataSource.query(`SELECT state FROM pgboss.job WHERE name = $1`, [MAIL_SEND]);
    expect(job.state).toBe('created');
    await startMailWorker(boss, transport);
    // The relay's session records each command as it arrives: wait for the recipient, not only for the session.
    await waitUntil(
      () => smtp.sessions[0]?.commands.includes('RCPT TO:<queued@example.com>') ?? false,
      10_000,
      'the queued mail to reach the relay',
    );
  } finally {
    quiet();
    await boss.stop({ graceful: false });
    await db.drop();
    await smtp.close();
  }
}, 30_000);
