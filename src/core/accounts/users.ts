import crypto from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { UserEntity, UserSettingsEntity } from '../../db/entities';
import { inTransaction, isUniqueViolation } from '../../db/transaction';
import { grantBonus, openBalance, setPlanTokens } from '../billing/ledger';
import { PlanSlug } from '../catalog/types';
import { AccountConflictError } from './errors';
import { BILLING_PERIOD_DAYS, Plan, PlanDirectory, STARTER_GRANT_TOKENS } from './plans';

export interface NewUser {
  name: string;
  email?: string | null;
  phone?: string | null;
  telegramId?: number | string | null;
  messengerUsername?: string | null;
  avatarUrl?: string | null;
  passwordHash?: string | null;
  /** The email was proven (by an identity provider's verified claim). */
  emailVerified?: boolean;
  idp?: { issuer: string; subject: string } | null;
  plan?: PlanSlug;
  language?: 'en' | 'ru';
  /** Sets plan tokens exactly (default: the plan's allowance). */
  planTokens?: number;
  /** Sets bonus tokens exactly (default: the Starter grant for the free plan, none otherwise). */
  bonusTokens?: number;
}

const DAY_MS = 86_400_000;

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}

function conflictField(err: unknown): AccountConflictError {
  const detail = String((err as { driverError?: { detail?: string } }).driverError?.detail ?? '');
  if (detail.includes('(email)')) return new AccountConflictError('email', 'An account with this email already exists');
  if (detail.includes('(phone)')) return new AccountConflictError('phone', 'An account with this phone already exists');
  if (detail.includes('(telegram_id)')) return new AccountConflictError('telegram_id', 'This Telegram account is already linked');
  return new AccountConflictError('identity', 'This identity is already linked to an account');
}

/**
 * Creates a user with settings, a balance, the plan's tokens and (Starter) the one-time 50-token grant, in one
 * transaction. Unique email/phone/telegram id clashes become AccountConflictError.
 */
export async function createUser(ds: DataSource, plans: PlanDirectory, input: NewUser): Promise<UserEntity> {
  const planSlug = input.plan ?? 'free';
  const plan = await plans.get(planSlug);
  const now = new Date();
  try {
    return await inTransaction(ds, async (em: EntityManager) => {
      const user = await em.getRepository(UserEntity).save(
        em.getRepository(UserEntity).create({
          name: input.name,
          email: input.email ? input.email.trim().toLowerCase() : null,
          phone: input.phone ?? null,
          telegramId: input.telegramId != null ? String(input.telegramId) : null,
          messengerUsername: input.messengerUsername ?? null,
          avatarUrl: input.avatarUrl ?? null,
          passwordHash: input.passwordHash ?? null,
          emailVerifiedAt: input.emailVerified && input.email ? now : null,
          idpIssuer: input.idp?.issuer ?? null,
          idpSubject: input.idp?.subject ?? null,
          planSlug,
          planExpiresAt: plan.level > 0 ? addDays(now, BILLING_PERIOD_DAYS) : null,
          periodStartedAt: now,
          nextRefillAt: addDays(now, BILLING_PERIOD_DAYS),
        }),
      );
      await em.getRepository(UserSettingsEntity).insert({ userId: user.id, language: input.language ?? 'en' });
      await openBalance(em, user.id);
      const planTokens = input.planTokens ?? plan.monthlyTokens;
      if (planTokens > 0) {
        await setPlanTokens(em, user.id, planTokens, 'refill', `period:${now.toISOString()}`, `${plan.slug} allowance`);
      }
      const bonus = input.bonusTokens ?? (planSlug === 'free' ? STARTER_GRANT_TOKENS : 0);
      if (bonus > 0) {
        const reference = input.bonusTokens === undefined ? 'starter-grant' : `initial-bonus`;
        await grantBonus(em, user.id, bonus, reference, reference === 'starter-grant' ? 'Starter one-time grant' : undefined);
      }
      return user;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflictField(err);
    throw err;
  }
}

export async function findUserById(ds: DataSource, id: number): Promise<UserEntity | null> {
  return ds.getRepository(UserEntity).findOneBy({ id });
}

/** Moves a user to another plan: a new billing period starts now with the new plan's allowance. */
export async function changePlan(ds: DataSource, plans: PlanDirectory, userId: number, planSlug: PlanSlug): Promise<UserEntity> {
  const plan = await plans.get(planSlug);
  return inTransaction(ds, (em) => applyPlan(em, plan, userId));
}

/**
 * `changePlan` in the caller's transaction. `paidThrough` (an operator's end date): the plan runs to then and lapses to
 * Starter at the first period end after it, as a bought plan; null: it renews with each period until changed.
 */
export async function applyPlan(em: EntityManager, plan: Plan, userId: number, paidThrough: Date | null = null): Promise<UserEntity> {
  const now = new Date();
  const repo = em.getRepository(UserEntity);
  const user = await repo.findOneByOrFail({ id: userId });
  user.planSlug = plan.slug;
  user.planPaidThrough = plan.level > 0 ? paidThrough : null;
  user.planExpiresAt = plan.level > 0 ? (user.planPaidThrough ?? addDays(now, BILLING_PERIOD_DAYS)) : null;
  user.periodStartedAt = now;
  user.nextRefillAt = addDays(now, BILLING_PERIOD_DAYS);
  await repo.save(user);
  await setPlanTokens(
    em,
    userId,
    plan.monthlyTokens,
    'refill',
    `plan:${plan.slug}:${now.toISOString()}:${crypto.randomUUID()}`,
    `plan changed to ${plan.slug}`,
  );
  return user;
}
