import type { DataSource, EntityManager } from 'typeorm';
import { inTransaction, isUniqueViolation } from '../../db/transaction';
import { BILLING_PERIOD_DAYS, PlanDirectory } from '../accounts/plans';
import { addDays } from '../accounts/users';
import type { PlanSlug } from '../catalog/types';
import type { AdminActor, AuditRecorder } from '../admin/audit-port';
import { getBalance, grantBonus, setPlanTokens } from '../billing/ledger';
import { ParamError } from '../catalog';
import { newPromoCode, normalizePromoCode, PROMO_CODE_PATTERN } from './codes';
import { PromoAlreadyRedeemedError, PromoCodeTakenError, PromoExhaustedError, PromoExpiredError, PromoNotFoundError } from './errors';

export interface PromoRecord {
  id: number;
  code: string;
  bonusTokens: number | null;
  planSlug: PlanSlug | null;
  planDays: number | null;
  maxUses: number;
  uses: number;
  expiresAt: Date | null;
  createdAt: Date;
}

/** An operator's new code: bonus tokens, or a plan for some days (the door checks the bounds). */
export type NewPromo = { code?: string; maxUses: number; expiresAt: Date | null } & (
  { bonusTokens: number } | { planSlug: Exclude<PlanSlug, 'free'>; days: number }
);

/** What one redemption gave. */
export interface Redemption {
  code: string;
  bonusTokens?: number;
  planSlug?: PlanSlug;
  planExpiresAt?: Date;
  /** Tokens available after it (plan and bonus). */
  tokenBalance: number;
}

interface PromoRow {
  id: number;
  code: string;
  bonus_tokens: number | null;
  plan_slug: PlanSlug | null;
  plan_days: number | null;
  max_uses: number;
  uses: number;
  expires_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, code, bonus_tokens, plan_slug, plan_days, max_uses, uses, expires_at, created_at';
const CODE_ATTEMPTS = 5;
/** Bounds of an operator's code: a grant's bound, a year of a plan, a million uses. */
export const PROMO_MAX_TOKENS = 1_000_000;
export const PROMO_MAX_DAYS = 365;
export const PROMO_MAX_USES = 1_000_000;

const toRecord = (r: PromoRow): PromoRecord => ({
  id: r.id,
  code: r.code,
  bonusTokens: r.bonus_tokens,
  planSlug: r.plan_slug,
  planDays: r.plan_days,
  maxUses: r.max_uses,
  uses: r.uses,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
});

/** The ledger reference of one account's redemption of one code. */
export const promoLedgerReference = (promoId: number) => `promo:${promoId}`;

/** Promo codes: made by operators (audited), redeemed once per account while uses last (a ledger row, not audit). */
export class PromoService {
  constructor(
    private readonly ds: DataSource,
    private readonly plans: PlanDirectory,
    private readonly audit?: AuditRecorder,
  ) {}

  /** @throws ParamError (a bound, an unknown or free plan, a past expiry), PromoCodeTakenError */
  async create(input: NewPromo, actor: AdminActor): Promise<PromoRecord> {
    await this.check(input);
    for (let attempt = 1; ; attempt++) {
      const code = input.code !== undefined ? normalizePromoCode(input.code) : newPromoCode();
      try {
        return await inTransaction(this.ds, async (em) => {
          const [row] = await em.query<PromoRow[]>(
            `INSERT INTO promo_codes (code, bonus_tokens, plan_slug, plan_days, max_uses, expires_at, created_by)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
            [
              code,
              'bonusTokens' in input ? input.bonusTokens : null,
              'planSlug' in input ? input.planSlug : null,
              'planSlug' in input ? input.days : null,
              input.maxUses,
              input.expiresAt,
              actor.userId,
            ],
          );
          const promo = toRecord(row);
          await this.audit?.record({ actor, action: 'promo.create', target: { type: 'promo_code', id: promo.id }, after: promo }, em);
          return promo;
        });
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        // An operator's own name is theirs to change; a generated one is drawn again.
        if (input.code !== undefined || attempt >= CODE_ATTEMPTS) throw new PromoCodeTakenError(code);
      }
    }
  }

  private async check(input: NewPromo): Promise<void> {
    if (input.code !== undefined && !PROMO_CODE_PATTERN.test(input.code))
      throw new ParamError('code', 'a code is 3 to 40 letters, digits, - or _');
    if (!Number.isInteger(input.maxUses) || input.maxUses < 1 || input.maxUses > PROMO_MAX_USES)
      throw new ParamError('max_uses', `max_uses is a whole number from 1 to ${PROMO_MAX_USES.toLocaleString('en')}`);
    if (input.expiresAt !== null && !(input.expiresAt.getTime() > Date.now()))
      throw new ParamError('expires_at', 'expires_at must be in the future');
    if ('bonusTokens' in input) {
      if (!Number.isInteger(input.bonusTokens) || input.bonusTokens < 1 || input.bonusTokens > PROMO_MAX_TOKENS)
        throw new ParamError('bonus_tokens', `bonus_tokens is a whole number from 1 to ${PROMO_MAX_TOKENS.toLocaleString('en')}`);
      return;
    }
    const plan = (await this.plans.all()).get(input.planSlug);
    if (!plan) throw new ParamError('plan', `no plan is called "${input.planSlug}"`);
    if (plan.level === 0) throw new ParamError('plan', 'the Starter plan is what every account has: give bonus tokens instead');
    if (!Number.isInteger(input.days) || input.days < 1 || input.days > PROMO_MAX_DAYS)
      throw new ParamError('days', `days is a whole number from 1 to ${PROMO_MAX_DAYS}`);
  }

  /** Newest first; `before` is the last id of the previous page. */
  async list(options: { limit: number; before?: number }): Promise<PromoRecord[]> {
    const rows = await this.ds.query<PromoRow[]>(
      `SELECT ${COLUMNS} FROM promo_codes WHERE ($1::int IS NULL OR id < $1) ORDER BY id DESC LIMIT $2`,
      [options.before ?? null, options.limit],
    );
    return rows.map(toRecord);
  }

  /**
   * Redeems `code` for the account, in one transaction: the redemption row (once per account), the use counted
   * under a guard (never above `max_uses`, whatever the race), and the reward's ledger row. A refusal changes nothing.
   */
  async redeem(userId: number, rawCode: string): Promise<Redemption> {
    if (!PROMO_CODE_PATTERN.test(rawCode.trim())) throw new PromoNotFoundError();
    const code = normalizePromoCode(rawCode);
    return inTransaction(this.ds, async (em) => {
      const [row] = await em.query<PromoRow[]>(`SELECT ${COLUMNS} FROM promo_codes WHERE code = $1`, [code]);
      if (!row) throw new PromoNotFoundError();
      const promo = toRecord(row);
      if (promo.expiresAt && promo.expiresAt.getTime() <= Date.now()) throw new PromoExpiredError(promo.expiresAt);
      const redeemed = await em.query<unknown[]>(
        'INSERT INTO promo_redemptions (promo_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING promo_id',
        [promo.id, userId],
      );
      if (redeemed.length === 0) throw new PromoAlreadyRedeemedError();
      const counted = await em.query<unknown[]>(
        `WITH counted AS (
           UPDATE promo_codes SET uses = uses + 1 WHERE id = $1 AND uses < max_uses AND (expires_at IS NULL OR expires_at > now()) RETURNING id
         ) SELECT id FROM counted`,
        [promo.id],
      );
      if (counted.length === 0) throw new PromoExhaustedError();
      const reference = promoLedgerReference(promo.id);
      if (promo.bonusTokens !== null) {
        await grantBonus(em, userId, promo.bonusTokens, reference, `promo code ${promo.code}`);
        return { code: promo.code, bonusTokens: promo.bonusTokens, tokenBalance: (await getBalance(em, userId)).total };
      }
      const given = await this.applyPlan(em, userId, promo.planSlug as PlanSlug, promo.planDays as number, reference, promo.code);
      return { code: promo.code, ...given, tokenBalance: (await getBalance(em, userId)).total };
    });
  }

  /**
   * A plan for `days`: the same plan running is extended; another starts a new period with its allowance, lapsing
   * like a bought one. A higher plan running is kept: the code's plan then comes as bonus tokens worth its
   * allowance, as a lower plan bought while a higher one runs does.
   */
  private async applyPlan(
    em: EntityManager,
    userId: number,
    slug: PlanSlug,
    days: number,
    reference: string,
    code: string,
  ): Promise<Pick<Redemption, 'planSlug' | 'planExpiresAt' | 'bonusTokens'>> {
    const plan = await this.plans.get(slug);
    const [user] = await em.query<{ plan_slug: string; plan_expires_at: Date | null }[]>(
      'SELECT plan_slug, plan_expires_at FROM users WHERE id = $1 FOR UPDATE',
      [userId],
    );
    const now = new Date();
    const runs = user.plan_expires_at !== null && user.plan_expires_at > now;
    if (runs && user.plan_slug === slug) {
      const through = addDays(user.plan_expires_at as Date, days);
      await em.query('UPDATE users SET plan_paid_through = $2, plan_expires_at = $2, updated_at = now() WHERE id = $1', [userId, through]);
      await em.query(
        `INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta, note) VALUES ($1, 'grant', $2, 0, 0, $3)`,
        [userId, reference, `promo code ${code}: ${slug} through ${through.toISOString()}`],
      );
      return { planSlug: slug, planExpiresAt: through };
    }
    if (runs && (await this.plans.get(user.plan_slug)).level > plan.level) {
      if (plan.monthlyTokens > 0)
        await grantBonus(em, userId, plan.monthlyTokens, reference, `promo code ${code}: ${slug} while ${user.plan_slug} runs`);
      return { bonusTokens: plan.monthlyTokens };
    }
    const through = addDays(now, days);
    await em.query(
      `UPDATE users SET plan_slug = $2, period_started_at = $3, next_refill_at = $5, plan_expires_at = $4, plan_paid_through = $4, updated_at = now()
        WHERE id = $1`,
      [userId, slug, now, through, addDays(now, Math.min(days, BILLING_PERIOD_DAYS))],
    );
    await setPlanTokens(em, userId, plan.monthlyTokens, 'refill', reference, `promo code ${code}: ${slug} plan, new period`);
    return { planSlug: slug, planExpiresAt: through };
  }
}
