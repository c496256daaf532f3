import crypto from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { DomainError } from '../errors';
import type { MailMessage, Mailer } from './mailer';

// A small SMTP client (RFC 5321) for the few transactional mails we send: `smtp://` (STARTTLS when the server
// offers it) or `smtps://` (implicit TLS), AUTH PLAIN when the URL carries credentials.

interface Reply {
  code: number;
  lines: string[];
}

export class SmtpError extends DomainError {
  readonly code = 'mail_failed';
}

class SmtpConnection {
  private buffer = '';
  private lines: string[] = [];
  private readonly replies: Reply[] = [];
  private waiter?: { resolve: (r: Reply) => void; reject: (e: Error) => void };
  private failure?: Error;

  constructor(private socket: net.Socket) {
    this.attach(socket);
  }

  private attach(socket: net.Socket): void {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new SmtpError('connection closed by the server')));
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, end).replace(/\r$/, '');
      this.buffer = this.buffer.slice(end + 1);
      this.lines.push(line.slice(4));
      // `250-...` continues a multi-line reply; `250 ...` ends it.
      if (line[3] !== '-') {
        this.replies.push({ code: Number(line.slice(0, 3)), lines: this.lines });
        this.lines = [];
      }
    }
    this.flush();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.flush();
  }

  private flush(): void {
    if (!this.waiter) return;
    const next = this.replies.shift();
    if (next) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve(next);
    } else if (this.failure) {
      const w = this.waiter;
      this.waiter = undefined;
      w.reject(this.failure);
    }
  }

  reply(): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
      this.flush();
    });
  }

  async command(line: string | null, expect: number[], what: string): Promise<Reply> {
    if (line !== null) this.socket.write(`${line}\r\n`);
    const r = await this.reply();
    if (!expect.includes(r.code)) throw new SmtpError(`SMTP ${what} refused: ${r.code} ${r.lines.join(' ').slice(0, 200)}`);
    return r;
  }

  async upgrade(servername: string, options: tls.ConnectionOptions): Promise<void> {
    const plain = this.socket;
    plain.removeAllListeners('data');
    plain.removeAllListeners('error');
    plain.removeAllListeners('close');
    const secure = tls.connect({ ...options, socket: plain, servername });
    await new Promise<void>((resolve, reject) => {
      secure.once('secureConnect', resolve);
      secure.once('error', reject);
    });
    this.socket = secure;
    this.attach(secure);
  }

  get encrypted(): boolean {
    return this.socket instanceof tls.TLSSocket;
  }

  close(): void {
    this.socket.destroy();
  }
}

function encodeHeader(value: string): string {
  if (/[\r\n]/.test(value)) throw new SmtpError('mail headers must not contain line breaks');
  return /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The full message (headers and a base64 text body), dot-stuffed and ended for the DATA command. */
export function formatMessage(from: string, message: MailMessage, host: string, now = new Date()): string {
  const body = Buffer.from(message.text, 'utf8')
    .toString('base64')
    .replace(/.{1,76}/g, '$&\r\n');
  const headers = [
    `From: ${encodeHeader(from)}`,
    `To: ${encodeHeader(message.to)}`,
    `Subject: ${encodeHeader(message.subject)}`,
    `Date: ${now.toUTCString()}`,
    `Message-ID: <${crypto.randomUUID()}@${host}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
  ];
  const data = `${headers.join('\r\n')}\r\n\r\n${body}`;
  return `${data.replace(/^\./gm, '..')}.\r\n`;
}

function addressOf(from: string): string {
  const m = /<([^>]+)>/.exec(from);
  return (m ? m[1] : from).trim();
}

export class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  private readonly url: URL;

  constructor(
    smtpUrl: string,
    private readonly from: string,
    private readonly options: { timeoutMs?: number; tls?: tls.ConnectionOptions; clientName?: string } = {},
  ) {
    this.url = new URL(smtpUrl);
    if (this.url.protocol !== 'smtp:' && this.url.protocol !== 'smtps:')
      throw new SmtpError('SMTP_URL must start with smtp:// or smtps://');
  }

  async send(message: MailMessage): Promise<void> {
    const implicitTls = this.url.protocol === 'smtps:';
    const host = this.url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(this.url.port) || (implicitTls ? 465 : 587);
    const socket = implicitTls ? tls.connect({ ...this.options.tls, host, port, servername: host }) : net.connect({ host, port });
    socket.setTimeout(this.options.timeoutMs ?? 15_000, () => socket.destroy(new SmtpError('SMTP server timed out')));
    const conn = new SmtpConnection(socket);
    const me = this.options.clientName ?? 'localhost';
    try {
      await conn.command(null, [220], 'greeting');
      let ehlo = await conn.command(`EHLO ${me}`, [250], 'EHLO');
      if (!conn.encrypted && ehlo.lines.some((l) => /^STARTTLS\b/i.test(l))) {
        await conn.command('STARTTLS', [220], 'STARTTLS');
        await conn.upgrade(host, this.options.tls ?? {});
        ehlo = await conn.command(`EHLO ${me}`, [250], 'EHLO');
      }
      if (this.url.username) {
        if (!conn.encrypted) throw new SmtpError('refusing to send SMTP credentials over an unencrypted connection');
        const plain = Buffer.from(`\0${decodeURIComponent(this.url.username)}\0${decodeURIComponent(this.url.password)}`).toString(
          'base64',
        );
        await conn.command(`AUTH PLAIN ${plain}`, [235], 'AUTH');
      }
      await conn.command(`MAIL FROM:<${addressOf(this.from)}>`, [250], 'MAIL FROM');
      await conn.command(`RCPT TO:<${addressOf(encodeHeader(message.to))}>`, [250, 251], 'RCPT TO');
      await conn.command('DATA', [354], 'DATA');
      await conn.command(formatMessage(this.from, message, me).replace(/\r\n$/, ''), [250], 'message');
      await conn.command('QUIT', [221], 'QUIT').catch(() => undefined);
    } finally {
      conn.close();
    }
  }
}
