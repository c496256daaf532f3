// The operator's accounts: search, one account's whole picture, and the changes an admin makes to an account
// (grant, plan, block, sessions) from any door (dashboard, bot, CLI), each with its audit row in its transaction.
import type { DataSource } from 'typeorm';
import { GenerationEntity, LedgerEntryEntity, UserEntity } from '../../db/entities';
import type { AccountManagement, SessionView } from '../accounts/account-management';
import type { ApiKeyService, ApiKeyView } from '../accounts/api-keys';
import { NotFoundError } from '../accounts/errors';
import type { Plan, PlanDirectory } from '../accounts/plans';
import { summarizeAccount, type AccountSummary } from '../accounts/summaries';
import type { Balance } from '../billing/ledger';
import type { GenerationRecord } from '../records';
import { isRowId } from '../row-ids';
import { decodeCursor, encodeCursor } from '../stats/history';

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
function searchConditions(raw: string): { sql: string; params: Record<string, unknown> } | null {
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
    private readonly apiKeys: Pick<ApiKeyService, 'list'>,
    private readonly accounts: Pick<AccountManagement, 'sessions'>,
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
      this.apiKeys.list(userId),
      this.accounts.sessions(userId),
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
