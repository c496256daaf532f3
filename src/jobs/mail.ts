import PgBoss from 'pg-boss';
import type { MailMessage, Mailer } from '../core/accounts/mailer';

export const MAIL_SEND = 'mail-send';

/**
 * Mail as a durable job: `send` only queues it (so a request never waits on, or loses mail to, an SMTP hiccup);
 * a worker hands it to the transport, retrying with backoff for about an hour.
 */
export class QueuedMailer implements Mailer {
  get kind(): 'smtp' | 'log' {
    return this.transport.kind;
  }

  constructor(
    private readonly boss: PgBoss,
    readonly transport: Mailer,
  ) {}

  async send(message: MailMessage): Promise<void> {
    await this.boss.send(MAIL_SEND, message, { retryLimit: 10, retryDelay: 15, retryBackoff: true, expireInSeconds: 60 });
  }
}

/** The worker side: one mail per job, so one failure retries only that mail. */
export async function startMailWorker(boss: PgBoss, transport: Mailer): Promise<void> {
  await boss.createQueue(MAIL_SEND);
  await boss.work<MailMessage>(MAIL_SEND, { pollingIntervalSeconds: 1, batchSize: 1 }, async ([job]) => {
    await transport.send(job.data);
  });
}
