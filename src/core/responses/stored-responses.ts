import { DataSource } from 'typeorm';
import { StoredResponseEntity, UserEntity } from '../../db/entities';
import type { ApiKeyService } from '../accounts/api-keys';
import type { PlanDirectory } from '../accounts/plans';
import type { Actor } from '../generations/service';
import { ResponseNotCancellableError, ResponseNotFoundError } from './errors';

// Responses of `/v1/responses` kept for their account (`store`, the default, as at OpenAI): read back, listed item by
// item, continued with `previous_response_id`, deleted; background ones run later as a durable job. The wire JSON is
// the door's: the core keeps it as it is, scoped to the account, for the plan's retention.

export type StoredStatus = 'queued' | 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';

const RUNNING: readonly StoredStatus[] = ['queued', 'in_progress'];

export interface StoredResponse {
  id: string;
  userId: number;
  apiKeyId: number | null;
  status: StoredStatus;
  background: boolean;
  /** The response object as answered (reasoning items with their encrypted content). */
  response: Record<string, unknown>;
  /** Every input item it came from, the stored chain's included, in order, each with an `id`. */
  inputItems: Record<string, unknown>[];
  /** A background response's request, until it has run. */
  request: Record<string, unknown> | null;
  cancelRequested: boolean;
}

/** Runs a queued background response as a durable job (pg-boss in production). */
export interface BackgroundQueue {
  enqueue(responseId: string): Promise<void>;
}

/** Whose responses a caller reads: the account's, or (a restricted key) only those that key created. */
export interface Owner {
  userId: number;
  keyId?: number;
}

export interface InputItemsPage {
  data: Record<string, unknown>[];
  hasMore: boolean;
}

function recordOf(e: StoredResponseEntity): StoredResponse {
  return {
    id: e.id,
    userId: e.userId,
    apiKeyId: e.apiKeyId,
    status: e.status as StoredStatus,
    background: e.background,
    response: e.response,
    inputItems: e.inputItems as Record<string, unknown>[],
    request: e.request,
    cancelRequested: e.cancelRequested,
  };
}

export class StoredResponses {
  private queue?: BackgroundQueue;

  constructor(
    private readonly ds: DataSource,
    private readonly plans: PlanDirectory,
    private readonly apiKeys: ApiKeyService,
  ) {}

  /** The job queue background responses run on (set once the queue exists). */
  runOn(queue: BackgroundQueue): void {
    this.queue = queue;
  }

  private get repo() {
    return this.ds.getRepository(StoredResponseEntity);
  }

  /** Keeps a response for the actor's account until its plan's retention ends. */
  async save(
    actor: Actor,
    r: Pick<StoredResponse, 'id' | 'status' | 'background' | 'response' | 'inputItems'> & { request?: Record<string, unknown> },
  ): Promise<void> {
    const days = actor.plan.retentionDays;
    await this.ds.query(
      `INSERT INTO stored_responses (id, user_id, api_key_id, status, background, response, input_items, request, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8::jsonb,
               CASE WHEN $9::int IS NULL THEN NULL ELSE now() + make_interval(days => $9::int) END)`,
      [
        r.id,
        actor.user.id,
        actor.key?.id ?? null,
        r.status,
        r.background,
        JSON.stringify(r.response),
        JSON.stringify(r.inputItems),
        r.request ? JSON.stringify(r.request) : null,
        days,
      ],
    );
  }

  /** A background response, kept and queued: it runs as a job (a queue failure fails it at once). */
  async queueBackground(
    actor: Actor,
    r: Pick<StoredResponse, 'id' | 'response' | 'inputItems'> & { request: Record<string, unknown> },
  ): Promise<void> {
    if (!this.queue) throw new Error('background responses need the job queue');
    await this.save(actor, { ...r, status: 'queued', background: true });
    try {
      await this.queue.enqueue(r.id);
    } catch (err) {
      await this.finish(r.id, {
        ...r.response,
        status: 'failed',
        error: { code: 'server_error', message: 'The response could not be queued.' },
      });
      throw err;
    }
  }

  /** The owner's response. @throws ResponseNotFoundError (another account's is not found either) */
  async get(owner: Owner, id: string): Promise<StoredResponse> {
    const found = await this.find(owner, id);
    if (!found) throw new ResponseNotFoundError(id);
    return found;
  }

  /** The owner's response, or undefined. */
  async find(owner: Owner, id: string): Promise<StoredResponse | undefined> {
    const found = await this.repo.findOneBy({ id, userId: owner.userId, ...(owner.keyId !== undefined ? { apiKeyId: owner.keyId } : {}) });
    return found ? recordOf(found) : undefined;
  }

  /** A response the service runs (the background job), whoever's it is; undefined when it is gone. */
  async byId(id: string): Promise<StoredResponse | undefined> {
    const found = await this.repo.findOneBy({ id });
    return found ? recordOf(found) : undefined;
  }

  /** Deletes it (a background one still running stops: its job finds it gone). @throws ResponseNotFoundError */
  async delete(owner: Owner, id: string): Promise<void> {
    const res = await this.repo.delete({ id, userId: owner.userId, ...(owner.keyId !== undefined ? { apiKeyId: owner.keyId } : {}) });
    if (!res.affected) throw new ResponseNotFoundError(id);
  }

  /** One page of a response's input items, after the item `after` (exclusive), in `order`. @throws ResponseNotFoundError */
  async inputItems(owner: Owner, id: string, page: { after?: string; limit: number; order: 'asc' | 'desc' }): Promise<InputItemsPage> {
    const { inputItems } = await this.get(owner, id);
    const all = page.order === 'asc' ? inputItems : [...inputItems].reverse();
    const start = page.after !== undefined ? all.findIndex((i) => i.id === page.after) + 1 : 0;
    return { data: all.slice(start, start + page.limit), hasMore: start + page.limit < all.length };
  }

  /** An item the account's stored responses hold (an input or output item), by its id; undefined when none does. */
  async findItem(owner: Owner, itemId: string): Promise<Record<string, unknown> | undefined> {
    const rows = await this.ds.query<{ item: Record<string, unknown> }[]>(
      `SELECT item FROM stored_responses r,
              jsonb_array_elements(r.input_items || COALESCE(r.response->'output', '[]'::jsonb)) AS item
        WHERE r.user_id = $1 AND ($3::int IS NULL OR r.api_key_id = $3) AND item->>'id' = $2
        LIMIT 1`,
      [owner.userId, itemId, owner.keyId ?? null],
    );
    return rows[0]?.item;
  }

  /** The job takes a queued response (once: another worker or a cancel got there first when undefined). */
  async claim(id: string): Promise<StoredResponse | undefined> {
    const rows = await this.ds.query<[StoredResponseEntity[], number]>(
      `UPDATE stored_responses SET status = 'in_progress', updated_at = now(),
              response = jsonb_set(response, '{status}', '"in_progress"')
        WHERE id = $1 AND status = 'queued'
        RETURNING id`,
      [id],
    );
    return rows[0].length > 0 ? this.byId(id) : undefined;
  }

  /** The response's end (or progress): its object and status; the request to run is dropped once it has run. */
  async finish(id: string, response: Record<string, unknown>): Promise<void> {
    const status = String(response.status) as StoredStatus;
    await this.ds.query(
      `UPDATE stored_responses SET response = $2::jsonb, status = $3, updated_at = now(),
              request = CASE WHEN $4 THEN request ELSE NULL END
        WHERE id = $1`,
      [id, JSON.stringify(response), status, RUNNING.includes(status)],
    );
  }

  /**
   * Asks a background response to stop: a queued one is cancelled at once, a running one when its job sees the
   * request (it then bills what the vendor wrote). @throws ResponseNotFoundError, ResponseNotCancellableError
   */
  async requestCancel(owner: Owner, id: string): Promise<StoredResponse> {
    const r = await this.get(owner, id);
    if (!r.background) throw new ResponseNotCancellableError(id, 'Only responses created with background=true can be cancelled.');
    await this.ds.query(
      `UPDATE stored_responses SET cancel_requested = true, updated_at = now(),
              status = CASE WHEN status = 'queued' THEN 'cancelled' ELSE status END,
              response = CASE WHEN status = 'queued' THEN jsonb_set(response, '{status}', '"cancelled"') ELSE response END,
              request = CASE WHEN status = 'queued' THEN NULL ELSE request END
        WHERE id = $1`,
      [id],
    );
    return this.get(owner, id);
  }

  /** Whether the response's cancel was asked for (the job polls it while it runs). */
  async cancelRequested(id: string): Promise<boolean> {
    const rows = await this.ds.query<{ cancel_requested: boolean }[]>(`SELECT cancel_requested FROM stored_responses WHERE id = $1`, [id]);
    return rows[0]?.cancel_requested ?? true;
  }

  /** Who a background response runs as: its account and plan, and the key it was created with. @throws Error when gone */
  async actorOf(r: StoredResponse): Promise<Actor> {
    const user = await this.ds.getRepository(UserEntity).findOneBy({ id: r.userId });
    if (!user || user.isBlocked) throw new Error('the account is blocked or gone');
    const key = r.apiKeyId === null ? undefined : await this.apiKeys.scopeOf(r.userId, r.apiKeyId);
    if (key === null) throw new Error('the API key this response runs as was deleted or has expired');
    return { user, plan: await this.plans.get(user.planSlug), ...(key ? { key } : {}) };
  }

  /** Deletes responses past their plan's retention (the maintenance job), a batch at a time. */
  async purgeExpired(limit = 500): Promise<number> {
    const rows = await this.ds.query<[unknown[], number]>(
      `DELETE FROM stored_responses WHERE id IN (SELECT id FROM stored_responses WHERE expires_at < now() LIMIT $1)`,
      [limit],
    );
    return rows[1];
  }
}
