import nodemailer, { type Transporter } from 'nodemailer';
import { SmtpError } from './errors';
import type { MailMessage, Mailer } from './mailer';

export { SmtpError };

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export interface SmtpOptions {
  timeoutMs?: number;
  /** TLS settings (tests pass a trusted self-signed certificate). */
  tls?: { rejectUnauthorized?: boolean; ca?: string | Buffer };
}

/**
 * Mail over SMTP with nodemailer. `smtps://` is TLS from the start; `smtp://` must upgrade with STARTTLS (the
 * mail is refused rather than sent in clear) except on a loopback relay (`?requireTLS=true` insists there too) or
 * with `?requireTLS=false` in the URL.
 * `MAIL_FROM` may carry a display name in any script (`Nébula <no-reply@example.com>`): nodemailer encodes it.
 */
export class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  private readonly transport: Transporter;

  constructor(smtpUrl: string, from: string, options: SmtpOptions = {}) {
    const url = new URL(smtpUrl);
    const implicitTls = url.protocol === 'smtps:';
    const asked = url.searchParams.get('requireTLS');
    const requireTls = !implicitTls && (asked === 'true' || (asked !== 'false' && !LOOPBACK.has(url.hostname)));
    const timeout = options.timeoutMs ?? 15_000;
    this.transport = nodemailer.createTransport(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port ? Number(url.port) : implicitTls ? 465 : 587,
        secure: implicitTls,
        requireTLS: requireTls,
        auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
        tls: options.tls,
      },
      { from },
    );
  }

  async send(message: MailMessage): Promise<void> {
    try {
      await this.transport.sendMail({ to: message.to, subject: message.subject, text: message.text });
    } catch (err) {
      throw new SmtpError(`mail to ${message.to} failed: ${(err as Error).message}`);
    }
  }
}
