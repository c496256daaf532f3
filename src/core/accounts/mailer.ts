import type { Logger } from '../../logger';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** The mail port: SMTP (nodemailer, smtp-mailer.ts) when configured, the log otherwise; queued as a job in production (jobs/mail.ts). */
export interface Mailer {
  readonly kind: 'smtp' | 'log';
  send(message: MailMessage): Promise<void>;
}

/**
 * Fallback when SMTP_URL is not set. Outside production the message (with its one-time link) goes to the log,
 * where a developer can pick it up; in production only the fact that a mail was dropped is logged, never its
 * body (reset and verification links are credentials).
 */
export class LogMailer implements Mailer {
  readonly kind = 'log';

  constructor(
    private readonly log: Logger,
    private readonly revealBody = false,
  ) {}

  async send(message: MailMessage): Promise<void> {
    if (this.revealBody) {
      this.log.warn(
        { mail: { to: message.to, subject: message.subject, body: message.text } },
        'SMTP_URL is not set: mail written to the log instead of sent (development only)',
      );
    } else {
      this.log.error({ mail: { subject: message.subject } }, 'SMTP_URL is not set: a mail was not sent (set SMTP_URL)');
    }
  }
}
