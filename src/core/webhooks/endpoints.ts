import { DataSource } from 'typeorm';
import type { AccountChangeFeed } from '../accounts/account-changes';
import { WebhookEndpointEntity } from '../../db/entities';
import { NotFoundError } from '../accounts/errors';
import { WebhookInputError } from './errors';
import { isWebhookEvent, WEBHOOK_EVENTS, WebhookEventName } from './events';
import { newWebhookSecret } from './signing';
import { checkWebhookTarget, TargetPolicy } from './target-policy';

export interface WebhookEndpointView {
  id: number;
  url: string;
  events: string[];
  status: 'active' | 'failing' | 'disabled';
  failing_since: string | null;
  created_at: string;
}

export interface CreatedWebhookEndpoint {
  id: number;
  url: string;
  events: string[];
  /** Shown once, here. */
  secret: string;
  created_at: string;
}

export interface EndpointRules extends TargetPolicy {
  maxEndpoints: number;
}

function view(e: WebhookEndpointEntity): WebhookEndpointView {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    status: e.status,
    failing_since: e.failingSince ? e.failingSince.toISOString() : null,
    created_at: e.createdAt.toISOString(),
  };
}

function normaliseEvents(events: readonly string[] | null | undefined): WebhookEventName[] {
  if (events === undefined || events === null) return [...WEBHOOK_EVENTS];
  if (events.length === 0) throw new WebhookInputError('unknown_event', 'events', 'events must name at least one event (omit it for all)');
  const unknown = events.filter((e) => !isWebhookEvent(e));
  if (unknown.length > 0) {
    throw new WebhookInputError(
      'unknown_event',
      'events',
      `unknown event ${unknown.map((e) => `"${e}"`).join(', ')}; known: ${WEBHOOK_EVENTS.join(', ')}`,
    );
  }
  return [...new Set(events as WebhookEventName[])];
}

/** The endpoints an account registered. Another account's endpoint ids answer not found. */
export class WebhookEndpoints {
  constructor(
    private readonly ds: DataSource,
    private readonly rules: EndpointRules,
    /** Instances cache what each account subscribed to: a change answers once it went out (see AccountChangeFeed). */
    private readonly changes?: AccountChangeFeed,
  ) {}

  private changeHeard(userId: number): Promise<void> {
    return this.changes?.expect(userId) ?? Promise.resolve();
  }

  /** @throws WebhookInputError (nothing stored) */
  async create(userId: number, input: { url: string; events?: readonly string[] | null }): Promise<CreatedWebhookEndpoint> {
    const events = normaliseEvents(input.events);
    // Stored as given (the checks ran on the parsed form), so the answer echoes the caller's URL.
    const url = input.url.trim();
    await checkWebhookTarget(url, this.rules);
    const secret = newWebhookSecret();
    const heard = this.changeHeard(userId);
    const rows = await this.ds.transaction(async (tx) => {
      // The account row lock serialises concurrent registrations, so the count below sees every committed one.
      await tx.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
      return tx.query<{ id: number; created_at: Date }[]>(
        `INSERT INTO webhook_endpoints (user_id, url, events, secret)
         SELECT $1, $2, $3::text[], $4
          WHERE (SELECT count(*) FROM webhook_endpoints WHERE user_id = $1) < $5
         RETURNING id, created_at`,
        [userId, url, events, secret, this.rules.maxEndpoints],
      );
    });
    if (rows.length === 0) {
      throw new WebhookInputError('webhook_limit_reached', null, `You can have at most ${this.rules.maxEndpoints} webhook endpoints`);
    }
    await heard;
    return { id: rows[0].id, url, events, secret, created_at: new Date(rows[0].created_at).toISOString() };
  }

  async list(userId: number): Promise<WebhookEndpointView[]> {
    const rows = await this.ds.getRepository(WebhookEndpointEntity).find({ where: { userId }, order: { id: 'ASC' } });
    return rows.map(view);
  }

  async get(userId: number, id: number): Promise<WebhookEndpointEntity> {
    const row = await this.ds.getRepository(WebhookEndpointEntity).findOneBy({ id, userId });
    if (!row) throw new NotFoundError('Webhook');
    return row;
  }

  /** Deleting stops every pending delivery to it (they go with it). */
  async delete(userId: number, id: number): Promise<void> {
    const heard = this.changeHeard(userId);
    const result = await this.ds.getRepository(WebhookEndpointEntity).delete({ id, userId });
    if (!result.affected) throw new NotFoundError('Webhook');
    await heard;
  }
}
