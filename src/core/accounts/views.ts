import { UserEntity } from '../../db/entities';
import { Balance } from '../billing/ledger';
import { Plan } from './plans';

/** The spec's User object. */
export interface UserView {
  id: number;
  name: string;
  email: string | null;
  /** The email was proven (verification link or identity provider); false without an email. */
  email_verified: boolean;
  messenger_username: string | null;
  avatar_url: string | null;
  plan: string;
  plan_expires_at: string | null;
  token_balance: number;
  token_limit: number;
  tokens_used_this_period: number;
  rate_limit_hourly: number;
  rate_limit_daily: number;
  auth_methods: { messenger: boolean; identity_provider: boolean; email: boolean };
}

export function toUserView(user: UserEntity, plan: Plan, balance: Balance): UserView {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    email_verified: user.email !== null && user.emailVerifiedAt != null,
    messenger_username: user.messengerUsername,
    avatar_url: user.avatarUrl,
    plan: user.planSlug,
    plan_expires_at: user.planExpiresAt ? user.planExpiresAt.toISOString() : null,
    token_balance: balance.total,
    token_limit: plan.monthlyTokens,
    tokens_used_this_period: balance.usedThisPeriod,
    rate_limit_hourly: plan.rateLimitHourly,
    rate_limit_daily: plan.rateLimitDaily,
    auth_methods: {
      messenger: user.telegramId !== null,
      identity_provider: user.idpSubject !== null,
      email: user.email !== null && user.passwordHash !== null,
    },
  };
}

/** The spec's Balance object. */
export interface BalanceView {
  plan: string;
  token_balance: number;
  plan_tokens_remaining: number;
  bonus_tokens: number;
  plan_expires_at: string | null;
  next_refill_at: string;
}

/** What a balance view shows of its account. */
export type BalanceOwner = Pick<UserEntity, 'id' | 'planSlug' | 'planExpiresAt' | 'nextRefillAt'>;

export function toBalanceView(user: BalanceOwner, balance: Balance): BalanceView {
  return {
    plan: user.planSlug,
    token_balance: balance.total,
    plan_tokens_remaining: balance.planTokens,
    bonus_tokens: balance.bonusTokens,
    plan_expires_at: user.planExpiresAt ? user.planExpiresAt.toISOString() : null,
    next_refill_at: user.nextRefillAt.toISOString(),
  };
}
