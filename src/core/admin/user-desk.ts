// The operator's accounts: search, one account's whole picture, and the changes an admin makes to an account
// (grant, plan, block, sessions) from any door (dashboard, bot, CLI), each with its audit row in its transaction.
import crypto from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { GenerationEntity, LedgerEntryEntity, UserEntity } from '../../db/entities';
import { inTransaction } from '../../db/transaction';
import type { AccountManagement, SessionView } from '../accounts/account-management';
import type { ApiKeyService, ApiKeyView } from '../accounts/api-keys';
import { NotFoundError } from '../accounts/errors';
import type { Plan, PlanDirectory } from '../accounts/plans';
import { summarizeAccount, type AccountSummary } from '../accounts/summaries';
import { applyPlan } from '../accounts/users';
import { getBalance, grantBonus, type Balance } from '../billing/ledger';
import { ParamError } from '../catalog/errors';
import type { GenerationRecord } from '../records';
import { isRowId } from '../row-ids';
import { decodeCursor, encodeCursor } from '../stats/history';
import type { AdminActor, AdminAuditLog } from './audit-log';
import { CannotBlockSelfError } from './errors';

type AuditRecorder = Pick<AdminAuditLog, 'record'>;

/** The most bonus tokens one grant may give, at every door (the bot's `/admin grant`, the console, the CLI). */
export const MAX_GRANT_TOKENS = 1_000_000;
/** How long a grant's or a block's reason may be. */
export const MAX_REASON_LENGTH = 500;
/** How many ledger rows and generations an account's page shows (the latest). */
export const ACCOUNT_PAGE_ROWS = 20;

/** An account as the operator sees it: the owner's summary, plus how to reach it and whether it is blocked. */
export interface AdminUserRecord {
  summary: AccountSummary;
  phone: string | null;
  telegramId: string | null;
  planTokens: number;
  bonusTokens: number;
  blocked: boolean;
  blockedAt: Date | null;
  blockedReason: string | null;
  createdAt: Date;
}

export interface AdminUserPage {
  items: AdminUserRecord[];
  nextCursor: string | null;
}

export interface LedgerRecord {
  id: string;
  kind: string;
  reference: string | null;
  planDelta: number;
  bonusDelta: number;
  note: string | null;
  createdAt: Date;
}

/** One account's page: the account, its latest ledger rows and generations, its API keys and live sessions. */
export interface AdminUserDetail {
  user: AdminUserRecord;
  ledger: LedgerRecord[];
  keys: ApiKeyView[];
  sessions: SessionView[];
  generations: GenerationRecord[];
}

export interface UserSearch {
  /** An id, an email (prefix, any case), a Telegram id, a Telegram username (with or without @), or a phone. */
  q?: string;
  cursor?: string;
  limit: number;
}

type Row = UserEntity & { planTokens: number; bonusTokens: number; usedThisPeriod: number };

/** `LIKE` with the text taken literally. */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The conditions (OR-ed) a search text stands for, as SQL over `u` with its parameters: every reading of the text
 * that can match (`123` may be an id, a Telegram id or the digits of a phone).
 */
export function searchConditions(raw: string): { sql: string; params: Record<string, unknown> } | null {
  const q = raw.trim();
  if (q === '') return null;
  const ors: string[] = [];
  const params: Record<string, unknown> = {};
  if (/^\d{1,10}$/.test(q) && isRowId(Number(q))) {
    ors.push('u.id = :id');
    params.id = Number(q);
  }
  if (/^\d{1,19}$/.test(q) && BigInt(q) <= 9_223_372_036_854_775_807n) {
    ors.push('u.telegram_id = :telegramId');
    params.telegramId = q;
  }
  const phone = q.replace(/[\s().-]/g, '');
  if (/^\+?\d{5,15}$/.test(phone)) {
    ors.push('u.phone = :phone');
    params.phone = phone.startsWith('+') ? phone : `+${phone}`;
  }
  const username = q.replace(/^@/, '');
  if (/^[A-Za-z0-9_]{1,64}$/.test(username)) {
    ors.push(`lower(u.messenger_username) LIKE :username ESCAPE '\\'`);
    params.username = `${likeLiteral(username.toLowerCase())}%`;
  }
  if (!q.startsWith('@') || q.indexOf('@', 1) > 0) {
    // Emails are stored lower-cased.
    ors.push(`u.email LIKE :email ESCAPE '\\'`);
    params.email = `${likeLiteral(q.toLowerCase())}%`;
  }
  return { sql: `(${ors.join(' OR ')})`, params };
}

export class AdminUserDesk {
  constructor(
    private readonly ds: DataSource,
    private readonly plans: PlanDirectory,
    private readonly audit: AuditRecorder,
    /** What an account's page shows of its keys and sessions, and the change feed a block waits on (absent in the CLI). */
    private readonly service?: {
      apiKeys: Pick<ApiKeyService, 'list' | 'changeHeard'>;
      accounts: Pick<AccountManagement, 'sessions'>;
    },
  ) {}

  /** Newest accounts first. @throws ParamError (a bad cursor) */
  async search(s: UserSearch): Promise<AdminUserPage> {
    const qb = this.rows()
      .orderBy('u.id', 'DESC')
      .limit(s.limit + 1);
    const match = s.q !== undefined ? searchConditions(s.q) : null;
    if (match) qb.andWhere(match.sql, match.params);
    if (s.cursor) qb.andWhere('u.id < :before', { before: decodeCursor(s.cursor) });
    const rows = await this.load(qb);
    const items = rows.slice(0, s.limit);
    return { items, nextCursor: rows.length > s.limit ? encodeCursor(items[items.length - 1]!.summary.id) : null };
  }

  /** @throws NotFoundError (`not_found`, what: User) */
  async get(userId: number): Promise<AdminUserRecord> {
    const [user] = await this.load(this.rows().where('u.id = :userId', { userId }));
    if (!user) throw new NotFoundError('User');
    return user;
  }

  /** The account with its latest ledger rows and generations, its keys and live sessions. @throws NotFoundError */
  async detail(userId: number): Promise<AdminUserDetail> {
    const user = await this.get(userId);
    const [ledger, keys, sessions, generations] = await Promise.all([
      this.ds.getRepository(LedgerEntryEntity).find({ where: { userId }, order: { id: 'DESC' }, take: ACCOUNT_PAGE_ROWS }),
      this.service?.apiKeys.list(userId) ?? [],
      this.service?.accounts.sessions(userId) ?? [],
      this.ds.getRepository(GenerationEntity).find({ where: { userId }, order: { id: 'DESC' }, take: ACCOUNT_PAGE_ROWS }),
    ]);
    return {
      user,
      ledger: ledger.map((l) => ({
        id: String(l.id),
        kind: l.kind,
        reference: l.reference,
        planDelta: l.planDelta,
        bonusDelta: l.bonusDelta,
        note: l.note,
        createdAt: l.createdAt,
      })),
      keys,
      sessions,
      generations,
    };
  }

  /**
   * Gives bonus tokens: a ledger grant and its audit row (`user.grant`, the balance before and after) in one
   * transaction. `reference` makes a grant single-shot (the bot passes its update id: Telegram may deliver an update
   * twice); a grant already made changes nothing and writes no audit row. @throws ParamError, NotFoundError
   */
  async grant(userId: number, amount: number, reason: string, actor: AdminActor, reference?: string): Promise<AdminUserRecord> {
    if (!Number.isInteger(amount) || amount < 1 || amount > MAX_GRANT_TOKENS) {
      throw new ParamError('bonus_tokens', `a grant is a whole number of tokens from 1 to ${MAX_GRANT_TOKENS.toLocaleString('en')}`);
    }
    const why = reasonOf(reason, true)!;
    await inTransaction(this.ds, async (em) => {
      await lockUser(em, userId);
      const before = await getBalance(em, userId);
      const ref = reference ?? `admin:${crypto.randomUUID()}`;
      if (!(await grantBonus(em, userId, amount, ref, `${actor.label}: ${why}`.slice(0, 600)))) return;
      const after = await getBalance(em, userId);
      await this.audit.record(
        {
          actor,
          action: 'user.grant',
          target: { type: 'user', id: userId },
          before: balanceFigures(before),
          after: { ...balanceFigures(after), granted: amount, reason: why },
        },
        em,
      );
    });
    return this.get(userId);
  }

  /**
   * Moves the account to `planSlug` from now (a new period with the plan's allowance). `expiresAt`: the plan runs to
   * then (in the future) and lapses to Starter at the first period end after it; null: it renews until changed.
   * Audited (`user.plan`, before and after) in the change's transaction. @throws ParamError, NotFoundError
   */
  async setPlan(userId: number, planSlug: string, expiresAt: Date | null, actor: AdminActor): Promise<AdminUserRecord> {
    const plan = (await this.plans.all()).get(planSlug);
    if (!plan) throw new ParamError('plan', `no plan is called "${planSlug}"`);
    if (expiresAt !== null) {
      if (plan.level === 0) throw new ParamError('expires_at', 'the Starter plan does not expire: give null');
      if (!(expiresAt.getTime() > Date.now())) throw new ParamError('expires_at', 'expires_at must be in the future');
    }
    await inTransaction(this.ds, async (em) => {
      const user = await lockUser(em, userId);
      const updated = await applyPlan(em, plan, userId, expiresAt);
      await this.audit.record(
        {
          actor,
          action: 'user.plan',
          target: { type: 'user', id: userId },
          before: { plan: user.planSlug, plan_expires_at: user.planExpiresAt, plan_paid_through: user.planPaidThrough },
          after: { plan: updated.planSlug, plan_expires_at: updated.planExpiresAt, plan_paid_through: updated.planPaidThrough },
        },
        em,
      );
    });
    return this.get(userId);
  }

  /**
   * Blocks the account (its sessions are revoked, its API keys, access tokens and bot chats refused from the next
   * request on, on every instance) or unblocks it (it signs in again). This answers once this instance heard the
   * change go out (the account change feed), so no cached key outlives the answer. Audited (`user.block`,
   * `user.unblock`); asking for the state the account is in changes nothing and records nothing.
   * @throws CannotBlockSelfError, ParamError, NotFoundError
   */
  async setBlocked(userId: number, blocked: boolean, reason: string | undefined, actor: AdminActor): Promise<AdminUserRecord> {
    if (blocked && actor.userId === userId) throw new CannotBlockSelfError();
    const why = reasonOf(reason, blocked);
    const heard = this.service?.apiKeys.changeHeard(userId);
    const changed = await inTransaction(this.ds, async (em) => {
      const user = await lockUser(em, userId);
      if (user.isBlocked === blocked && (!blocked || user.blockedReason === why)) return false;
      const before = { blocked: user.isBlocked, blocked_at: user.blockedAt, blocked_reason: user.blockedReason };
      const [row] = await em.query<{ blocked_at: Date | null }[]>(
        `UPDATE users SET is_blocked = $2, blocked_at = CASE WHEN $2 THEN coalesce(blocked_at, now()) END,
                blocked_reason = CASE WHEN $2 THEN $3 END, updated_at = now()
          WHERE id = $1 RETURNING blocked_at`,
        [userId, blocked, why ?? null],
      );
      const revoked = blocked ? await revokeSessions(em, userId) : 0;
      await this.audit.record(
        {
          actor,
          action: blocked ? 'user.block' : 'user.unblock',
          target: { type: 'user', id: userId },
          before,
          after: {
            blocked,
            blocked_at: row?.blocked_at ?? null,
            blocked_reason: blocked ? why : null,
            ...(blocked ? { sessions_revoked: revoked } : {}),
            ...(!blocked && why ? { reason: why } : {}),
          },
        },
        em,
      );
      return true;
    });
    if (changed) await heard;
    return this.get(userId);
  }

  /** Signs every session of the account out (its access tokens stop at once); audited (`user.sessions_revoke`). */
  async revokeSessions(userId: number, actor: AdminActor): Promise<{ revoked: number }> {
    return inTransaction(this.ds, async (em) => {
      await lockUser(em, userId);
      const revoked = await revokeSessions(em, userId);
      await this.audit.record({ actor, action: 'user.sessions_revoke', target: { type: 'user', id: userId }, after: { revoked } }, em);
      return { revoked };
    });
  }

  private rows() {
    return this.ds
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .leftJoin('balances', 'b', 'b.user_id = u.id')
      .addSelect('coalesce(b.plan_tokens, 0)', 'plan_tokens')
      .addSelect('coalesce(b.bonus_tokens, 0)', 'bonus_tokens')
      .addSelect('coalesce(b.tokens_used_this_period, 0)', 'used_this_period');
  }

  private async load(qb: ReturnType<AdminUserDesk['rows']>): Promise<AdminUserRecord[]> {
    const { entities, raw } = await qb.getRawAndEntities<{
      u_id: number;
      plan_tokens: number;
      bonus_tokens: number;
      used_this_period: number;
    }>();
    const plans = await this.plans.all();
    const figures = new Map(raw.map((r) => [Number(r.u_id), r]));
    return entities.map((user) => {
      const r = figures.get(user.id)!;
      return this.record(
        { ...user, planTokens: Number(r.plan_tokens), bonusTokens: Number(r.bonus_tokens), usedThisPeriod: Number(r.used_this_period) },
        plans.get(user.planSlug),
      );
    });
  }

  private record(row: Row, plan: Plan | undefined): AdminUserRecord {
    const balance: Balance = {
      planTokens: row.planTokens,
      bonusTokens: row.bonusTokens,
      total: row.planTokens + row.bonusTokens,
      usedThisPeriod: row.usedThisPeriod,
    };
    const known: Plan = plan ?? {
      slug: row.planSlug as Plan['slug'],
      name: row.planSlug,
      level: 0,
      monthlyTokens: 0,
      rateLimitHourly: 0,
      rateLimitDaily: 0,
      retentionDays: null,
      priceRub: 0,
    };
    return {
      summary: summarizeAccount(row, known, balance),
      phone: row.phone,
      telegramId: row.telegramId,
      planTokens: row.planTokens,
      bonusTokens: row.bonusTokens,
      blocked: row.isBlocked,
      blockedAt: row.blockedAt,
      blockedReason: row.blockedReason,
      createdAt: row.createdAt,
    };
  }
}

/** The account's row, locked for the action's transaction. @throws NotFoundError */
async function lockUser(em: EntityManager, userId: number): Promise<UserEntity> {
  const user = await em.getRepository(UserEntity).findOne({ where: { id: userId }, lock: { mode: 'pessimistic_write' } });
  if (!user) throw new NotFoundError('User');
  return user;
}

/** Revokes every live session (refresh-token family) of the account; how many there were. */
async function revokeSessions(em: EntityManager, userId: number): Promise<number> {
  const rows = await em.query<{ family_id: string }[]>(
    `WITH ended AS (
       UPDATE refresh_tokens SET revoked_at = now()
        WHERE user_id = $1 AND revoked_at IS NULL AND rotated_at IS NULL AND expires_at > now()
        RETURNING family_id
     ) SELECT DISTINCT family_id FROM ended`,
    [userId],
  );
  // Rotated and expired tokens of those families end too (nothing live is left of them).
  await em.query('UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
  return rows.length;
}

/** A reason, trimmed: 1 to MAX_REASON_LENGTH characters (required, or absent). @throws ParamError */
function reasonOf(reason: string | undefined, required: boolean): string | undefined {
  const r = reason?.trim();
  if (!r) {
    if (required) throw new ParamError('reason', 'give a reason (1 to 500 characters)');
    return undefined;
  }
  if (r.length > MAX_REASON_LENGTH) throw new ParamError('reason', `the reason is at most ${MAX_REASON_LENGTH} characters`);
  return r;
}

const balanceFigures = (b: Balance) => ({ token_balance: b.total, plan_tokens: b.planTokens, bonus_tokens: b.bonusTokens });
