import crypto from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { ApiKeyEntity, UserEntity } from '../../db/entities';
import { Queryable } from '../billing/queryable';
import type { AccountChangeFeed } from './account-changes';
import { AccountCache, AccountCacheOptions } from './account-cache';
import { NotFoundError } from './errors';
import { BudgetPeriod, KeyLimitValues, KeyRestrictedError, KeyScope, keyScopeOf, limitsWiderThan } from './key-limits';

/** Every users column, aliased to the entity's property names. */
const USER_COLUMNS = `u.id, u.name, u.email, u.phone, u.telegram_id AS "telegramId", u.messenger_username AS "messengerUsername",
  u.idp_subject AS "idpSubject", u.idp_issuer AS "idpIssuer", u.avatar_url AS "avatarUrl", u.password_hash AS "passwordHash",
  u.plan_slug AS "planSlug", u.plan_expires_at AS "planExpiresAt", u.plan_paid_through AS "planPaidThrough", u.period_started_at AS "periodStartedAt",
  u.next_refill_at AS "nextRefillAt", u.is_blocked AS "isBlocked", u.created_at AS "createdAt", u.updated_at AS "updatedAt",
  u.email_verified_at AS "emailVerifiedAt", u.is_admin AS "isAdmin", u.blocked_at AS "blockedAt", u.blocked_reason AS "blockedReason",
  u.bot_blocked_at AS "botBlockedAt"`;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX = 'nb_';
const RANDOM_LENGTH = 41;
const CHECKSUM_LENGTH = 4;
export const API_KEY_LENGTH = PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH; // 48
export const API_KEY_PATTERN = /^nb_[0-9A-Za-z]{45}$/;

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62]; // 248 = 4*62: no modulo bias
    }
  }
  return out;
}

function checksum(body: string): string {
  const digest = crypto.createHash('sha256').update(body).digest();
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) out += BASE62[digest[i] % 62];
  return out;
}

/** True when the string has the shape of one of our keys and its checksum matches (no database needed). */
export function isWellFormedApiKey(key: string): boolean {
  if (!API_KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, PREFIX.length + RANDOM_LENGTH);
  return checksum(body) === key.slice(-CHECKSUM_LENGTH);
}

export function hashApiKey(key: string, pepper: string): string {
  return crypto.createHmac('sha256', pepper).update(key).digest('hex');
}

export function maskApiKey(prefix: string, last4: string): string {
  return `${prefix}${'•'.repeat(8)}${last4}`;
}

/** A key's own limits, as the owner sets them (every field optional on create and edit). */
export interface KeyLimits {
  token_budget?: number | null;
  budget_period?: BudgetPeriod;
  models?: string[] | null;
  expires_at?: Date | null;
}

export interface ApiKeyView {
  id: number;
  name: string;
  masked_key: string;
  created_at: string;
  last_used_at: string | null;
  token_budget: number | null;
  budget_period: BudgetPeriod;
  /** Tokens held or charged in the current budget period. */
  spent: number;
  models: string[] | null;
  expires_at: string | null;
  expired: boolean;
}

export interface CreatedApiKey extends ApiKeyView {
  key: string;
}

/** The start of the budget period that contains `now` (UTC), as the SQL function api_key_period_start has it. */
export function periodStart(period: BudgetPeriod, now = new Date()): Date {
  if (period === 'day') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  if (period === 'month') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return new Date(0);
}

const toView = (k: ApiKeyEntity, now = new Date()): ApiKeyView => ({
  id: k.id,
  name: k.name,
  masked_key: maskApiKey(k.keyPrefix, k.keyLast4),
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
  token_budget: k.tokenBudget,
  budget_period: k.budgetPeriod,
  spent: k.spentPeriodStart?.getTime() === periodStart(k.budgetPeriod, now).getTime() ? k.spent : 0,
  models: k.models,
  expires_at: k.expiresAt ? k.expiresAt.toISOString() : null,
  expired: k.expiresAt !== null && k.expiresAt.getTime() <= now.getTime(),
});

/** A verified key as the hot path keeps it (shared by the requests that hit the cache: never modified). */
interface VerifiedKey {
  user: UserEntity;
  scope: KeyScope;
}

/** A key's stored limits with the change applied (what the key would be). */
function limitsAfter(current: KeyLimitValues, change: KeyLimits): KeyLimitValues {
  return {
    tokenBudget: change.token_budget !== undefined ? change.token_budget : current.tokenBudget,
    budgetPeriod: change.budget_period ?? current.budgetPeriod,
    models: change.models !== undefined ? change.models : current.models,
    expiresAt: change.expires_at !== undefined ? change.expires_at : current.expiresAt,
  };
}

const NO_LIMITS: KeyLimitValues = { tokenBudget: null, budgetPeriod: 'month', models: null, expiresAt: null };

/**
 * A key may manage keys only without limits of its own, and never make a key wider than itself (see
 * limitsWiderThan). Web sessions (`by` undefined) may do anything. @throws KeyRestrictedError
 */
export function assertKeyMayWrite(by: KeyScope | undefined, result: KeyLimitValues): void {
  if (!by) return;
  if (by.restricted) throw new KeyRestrictedError();
  const wider = limitsWiderThan(result, by);
  if (wider.length > 0) throw new KeyRestrictedError(wider);
}

export interface ApiKeyServiceOptions {
  /** The hot-path SQL runner (default: the DataSource). */
  sql?: Queryable;
  /** With a feed, verified keys are cached while it is live (see AccountCache); without one, every lookup reads the database. */
  changes?: AccountChangeFeed;
  cache?: AccountCacheOptions;
}

/** The longest a request waits for its key's last-use write (a slow database does not hold it up longer). */
const MARK_WAIT_MS = 250;

export class ApiKeyService {
  private readonly sql: Queryable;
  private readonly changes?: AccountChangeFeed;
  /** Verified keys by hash, with their owner's row (shared by the requests that hit it: never modified). */
  private readonly cache?: AccountCache<VerifiedKey>;
  /** When this process last wrote each key's last_used_at: at most one write a minute per key, off the request path. */
  private readonly lastMarked = new Map<number, number>();

  constructor(
    private readonly ds: DataSource,
    private readonly pepper: string,
    options: ApiKeyServiceOptions = {},
  ) {
    this.sql = options.sql ?? ds;
    this.changes = options.changes;
    this.cache = options.changes && new AccountCache(options.changes, options.cache);
  }

  /** Whether verified keys are served from memory now (the change feed is live). */
  get caching(): boolean {
    return this.changes?.live ?? false;
  }

  /**
   * Resolves once this instance heard the next change of the account (see AccountChangeFeed.expect): take it before
   * a write that revokes keys, await it after, and the answer leaves only when every instance was told.
   */
  changeHeard(userId: number): Promise<void> {
    return this.changes?.expect(userId) ?? Promise.resolve();
  }

  /** How many verified keys this instance holds in memory. */
  get cachedKeys(): number {
    return this.caching ? (this.cache?.size ?? 0) : 0;
  }

  private get repo() {
    return this.ds.getRepository(ApiKeyEntity);
  }

  /**
   * Creates a key (inside `em`'s transaction when given); `by`: the key the request came with, which may not create
   * a key wider than itself. @throws KeyRestrictedError
   */
  async create(userId: number, name: string, em?: EntityManager, limits: KeyLimits = {}, by?: KeyScope): Promise<CreatedApiKey> {
    assertKeyMayWrite(by, limitsAfter(NO_LIMITS, limits));
    const body = PREFIX + randomBase62(RANDOM_LENGTH);
    const key = body + checksum(body);
    const repo = em ? em.getRepository(ApiKeyEntity) : this.repo;
    const saved = await repo.save(
      repo.create({
        userId,
        name,
        keyHash: hashApiKey(key, this.pepper),
        keyPrefix: key.slice(0, 7),
        keyLast4: key.slice(-4),
        tokenBudget: limits.token_budget ?? null,
        budgetPeriod: limits.budget_period ?? 'month',
        models: limits.models ?? null,
        expiresAt: limits.expires_at ?? null,
        spent: 0,
        spentPeriodStart: null,
      }),
    );
    return { ...toView(saved), key };
  }

  async list(userId: number): Promise<ApiKeyView[]> {
    const now = new Date();
    return (await this.repo.find({ where: { userId }, order: { id: 'ASC' } })).map((k) => toView(k, now));
  }

  /** The names of the account's keys by id (the request log and usage per key). */
  async names(userId: number): Promise<Map<number, string>> {
    const keys = await this.repo.find({ where: { userId }, select: { id: true, name: true } });
    return new Map(keys.map((k) => [k.id, k.name]));
  }

  /**
   * Renames a key and/or changes its limits. A new budget period recounts the key's spending in it from its
   * generations (held or charged), under the owner's balance lock like every other writer of the counter. `by`: the
   * key the request came with, which may not make a key wider than itself. @throws KeyRestrictedError, NotFoundError
   */
  async update(userId: number, id: number, change: KeyLimits & { name?: string }, by?: KeyScope): Promise<ApiKeyView> {
    if (by?.restricted) throw new KeyRestrictedError();
    const heard = this.changeHeard(userId);
    const out = await this.ds.transaction(async (em) => {
      await em.query('SELECT 1 FROM balances WHERE user_id = $1 FOR UPDATE', [userId]);
      const repo = em.getRepository(ApiKeyEntity);
      const key = await repo.findOne({ where: { id, userId }, lock: { mode: 'pessimistic_write' } });
      if (!key) throw new NotFoundError('API key');
      assertKeyMayWrite(by, limitsAfter(key, change));
      const limitsChanged =
        (change.token_budget !== undefined && change.token_budget !== key.tokenBudget) ||
        (change.budget_period !== undefined && change.budget_period !== key.budgetPeriod) ||
        change.models !== undefined ||
        change.expires_at !== undefined;
      if (change.name !== undefined) key.name = change.name;
      if (change.token_budget !== undefined) key.tokenBudget = change.token_budget;
      if (change.models !== undefined) key.models = change.models;
      if (change.expires_at !== undefined) key.expiresAt = change.expires_at;
      if (change.budget_period !== undefined && change.budget_period !== key.budgetPeriod) {
        key.budgetPeriod = change.budget_period;
        const start = periodStart(key.budgetPeriod);
        const rows = await em.query<{ spent: number }[]>(
          `SELECT COALESCE(SUM(CASE WHEN status = 'pending' THEN tokens_reserved ELSE tokens_spent END), 0)::int AS spent
             FROM generations WHERE api_key_id = $1 AND created_at >= $2`,
          [id, start],
        );
        key.spent = rows[0].spent;
        key.spentPeriodStart = start;
      }
      return { view: toView(await repo.save(key)), limitsChanged };
    });
    if (out.limitsChanged) await heard;
    return out.view;
  }

  /**
   * Deleted keys stop working at once everywhere: the deletion's NOTIFY drops the key from every instance's cache,
   * and this answers only once it was sent out (this instance heard it back).
   */
  async delete(userId: number, id: number, by?: KeyScope): Promise<void> {
    if (by?.restricted) throw new KeyRestrictedError();
    const heard = this.changeHeard(userId);
    const res = await this.repo.delete({ id, userId });
    if (!res.affected) throw new NotFoundError('API key');
    await heard;
  }

  /** Deletes every key of the account (a password reset that asks for it). @returns how many there were */
  async revokeAll(userId: number): Promise<number> {
    const heard = this.changeHeard(userId);
    const deleted = (await this.repo.delete({ userId })).affected ?? 0;
    if (deleted > 0) await heard;
    return deleted;
  }

  /**
   * Writes the key's last use, at most once a minute per key per instance. The request waits for that write (once
   * a minute, and at most MARK_WAIT_MS): a key's use is on record before its answer leaves, so the keys list read
   * right after shows it (written in the background, a list read at once missed it now and then).
   */
  private async markUsed(keyId: number): Promise<void> {
    const now = Date.now();
    if (now - (this.lastMarked.get(keyId) ?? 0) < 60_000) return;
    this.lastMarked.set(keyId, now);
    if (this.lastMarked.size > 10_000) this.lastMarked.clear();
    const written = this.sql
      .query(
        `UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [keyId],
      )
      .catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([written, new Promise((resolve) => (timer = setTimeout(resolve, MARK_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /** Resolves a presented key to its owner, or null (unknown or expired). Marks it used (at most once a minute per key). */
  async verify(key: string): Promise<{ userId: number; keyId: number } | null> {
    const found = await this.verifyWithOwner(key);
    return found && { userId: found.user.id, keyId: found.key.id };
  }

  /**
   * Like verify, with the owner's row and the key's scope: from the cache when this instance verified the key
   * recently and heard of no change to it or its owner since, otherwise in one query. An expired key is null. The
   * returned user row is shared: do not modify it.
   */
  async verifyWithOwner(key: string): Promise<{ user: UserEntity; key: KeyScope } | null> {
    if (!API_KEY_PATTERN.test(key)) return null;
    const hash = hashApiKey(key, this.pepper);
    const found = this.cache?.get(hash) ?? (await this.lookup(key, hash));
    if (!found || (found.scope.expiresAt && found.scope.expiresAt.getTime() <= Date.now())) return null;
    await this.markUsed(found.scope.id);
    return { user: found.user, key: found.scope };
  }

  /**
   * The scope of a key of the account by id (a schedule runs as the key it was made with), or null when the key is
   * gone or expired.
   */
  async scopeOf(userId: number, id: number): Promise<KeyScope | null> {
    const key = await this.repo.findOneBy({ id, userId });
    if (!key || (key.expiresAt && key.expiresAt.getTime() <= Date.now())) return null;
    return keyScopeOf(key.id, key);
  }

  private async lookup(key: string, hash: string): Promise<VerifiedKey | null> {
    if (!isWellFormedApiKey(key)) return null;
    const mark = this.cache?.mark() ?? 0;
    const rows = await this.sql.query<
      (Record<string, unknown> & {
        key_id: number;
        key_models: string[] | null;
        key_expires_at: Date | null;
        key_budget: number | null;
        key_period: BudgetPeriod;
      })[]
    >(
      `SELECT k.id AS key_id, k.models AS key_models, k.expires_at AS key_expires_at, k.token_budget AS key_budget,
              k.budget_period AS key_period, ${USER_COLUMNS}
         FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1`,
      [hash],
    );
    const row = rows[0];
    if (!row) return null;
    const {
      key_id: keyId,
      key_models: models,
      key_expires_at: expiresAt,
      key_budget: tokenBudget,
      key_period: budgetPeriod,
      ...userFields
    } = row;
    const user = this.ds.getRepository(UserEntity).create(userFields as Partial<UserEntity>);
    const scope = keyScopeOf(keyId, { tokenBudget, budgetPeriod, models, expiresAt: expiresAt && new Date(expiresAt) });
    const verified = { user, scope };
    this.cache?.set(hash, user.id, verified, mark);
    return verified;
  }
}
