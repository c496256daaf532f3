import type { Logger } from '../../logger';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** The mail port: SMTP when configured (smtp-mailer.ts), the log otherwise. */
export interface Mailer {
  readonly kind: 'smtp' | 'log';
  send(message: MailMessage): Promise<void>;
}

/**
 * Development fallback when SMTP_URL is not set: the message (with its one-time link) goes to the log, where
 * the operator can pick it up. Production deployments set SMTP_URL.
 */
export class LogMailer implements Mailer {
  readonly kind = 'log';

  constructor(private readonly log: Logger) {}

  async send(message: MailMessage): Promise<void> {
    this.log.warn(
      { mail: { to: message.to, subject: message.subject, body: message.text } },
      'SMTP_URL is not set: mail written to the log instead of sent',
    );
  }
}
