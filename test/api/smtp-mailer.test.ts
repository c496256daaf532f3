import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { formatMessage, SmtpError, SmtpMailer } from '../../src/core/accounts/smtp-mailer';

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

test('delivers a UTF-8 text mail: envelope, headers and a base64 body', async () => {
  const smtp = await fakeSmtp();
  try {
    const mailer = new SmtpMailer(`smtp://127.0.0.1:${smtp.port}`, 'Service <no-reply@gen.test>');
    await mailer.send({ to: 'ann@example.com', subject: 'Сброс пароля', text: 'Hello Ann,\n.\nyour link: https://gen.test/r?token=abc\n' });
    const [session] = smtp.sessions;
    expect(session.commands.slice(0, 4)).toEqual(['EHLO localhost', 'MAIL FROM:<no-reply@gen.test>', 'RCPT TO:<ann@example.com>', 'DATA']);
    expect(session.commands).toContain('QUIT');
    const [head, body] = session.data.split('\r\n\r\n');
    expect(head).toContain('From: Service <no-reply@gen.test>');
    expect(head).toContain('To: ann@example.com');
    expect(head).toContain(`Subject: =?UTF-8?B?${Buffer.from('Сброс пароля').toString('base64')}?=`);
    expect(head).toContain('Content-Transfer-Encoding: base64');
    expect(Buffer.from(body.replace(/\r\n/g, ''), 'base64').toString('utf8')).toBe(
      'Hello Ann,\n.\nyour link: https://gen.test/r?token=abc\n',
    );
  } finally {
    await smtp.close();
  }
});

test('a refused recipient rejects with the server reply', async () => {
  const smtp = await fakeSmtp({ reject: 'RCPT' });
  try {
    const mailer = new SmtpMailer(`smtp://127.0.0.1:${smtp.port}`, 'no-reply@gen.test');
    await expect(mailer.send({ to: 'ghost@example.com', subject: 'x', text: 'y' })).rejects.toThrow(/RCPT TO refused: 550/);
  } finally {
    await smtp.close();
  }
});

test('credentials are never sent over an unencrypted connection', async () => {
  const smtp = await fakeSmtp({ extensions: ['AUTH PLAIN LOGIN'] });
  try {
    const mailer = new SmtpMailer(`smtp://user:secret@127.0.0.1:${smtp.port}`, 'no-reply@gen.test');
    await expect(mailer.send({ to: 'a@example.com', subject: 'x', text: 'y' })).rejects.toThrow(SmtpError);
    expect(smtp.sessions[0].commands.some((c) => c.startsWith('AUTH'))).toBe(false);
  } finally {
    await smtp.close();
  }
});

test('header injection is refused; the message ends with the DATA terminator', () => {
  expect(() => formatMessage('a@b.c', { to: 'x@example.com\r\nBcc: all@example.com', subject: 's', text: 't' }, 'h')).toThrow(SmtpError);
  expect(formatMessage('a@b.c', { to: 'x@example.com', subject: 's', text: 't' }, 'h').endsWith('\r\n.\r\n')).toBe(true);
});

test('an unreachable server fails instead of hanging', async () => {
  const smtp = await fakeSmtp();
  await smtp.close();
  const mailer = new SmtpMailer(`smtp://127.0.0.1:${smtp.port}`, 'no-reply@gen.test', { timeoutMs: 2000 });
  await expect(mailer.send({ to: 'a@example.com', subject: 'x', text: 'y' })).rejects.toThrow();
});
