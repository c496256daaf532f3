import { UserEntity } from '../../db/entities';
import { Balance } from '../billing/ledger';
import { Plan } from './plans';

/** An account as its owner sees it: profile, plan, balance and limits (the API renders it as the User object). */
export interface AccountSummary {
  id: number;
  name: string;
  email: string | null;
  /** The email was proven (verification link or identity provider); false without an email. */
  emailVerified: boolean;
  messengerUsername: string | null;
  avatarUrl: string | null;
  plan: string;
  planExpiresAt: Date | null;
  tokenBalance: number;
  tokenLimit: number;
  tokensUsedThisPeriod: number;
  rateLimitHourly: number;
  rateLimitDaily: number;
  /** May use the operator's console (`/api/v2/admin`). */
  isAdmin: boolean;
  /** How the account can sign in. */
  signIn: { messenger: boolean; identityProvider: boolean; email: boolean };
}

export function summarizeAccount(user: UserEntity, plan: Plan, balance: Balance): AccountSummary {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    emailVerified: user.email !== null && user.emailVerifiedAt != null,
    messengerUsername: user.messengerUsername,
    avatarUrl: user.avatarUrl,
    plan: user.planSlug,
    planExpiresAt: user.planExpiresAt,
    tokenBalance: balance.total,
    tokenLimit: plan.monthlyTokens,
    tokensUsedThisPeriod: balance.usedThisPeriod,
    rateLimitHourly: plan.rateLimitHourly,
    rateLimitDaily: plan.rateLimitDaily,
    isAdmin: user.isAdmin,
    signIn: {
      messenger: user.telegramId !== null,
      identityProvider: user.idpSubject !== null,
      email: user.email !== null && user.passwordHash !== null,
    },
  };
}

/** An account's tokens: plan tokens first, then bonus tokens (the API renders it as the Balance object). */
export interface BalanceSummary {
  plan: string;
  tokenBalance: number;
  planTokensRemaining: number;
  bonusTokens: number;
  planExpiresAt: Date | null;
  nextRefillAt: Date;
}

/** What a balance summary shows of its account. */
export type BalanceOwner = Pick<UserEntity, 'id' | 'planSlug' | 'planExpiresAt' | 'nextRefillAt'>;

export function summarizeBalance(user: BalanceOwner, balance: Balance): BalanceSummary {
  return {
    plan: user.planSlug,
    tokenBalance: balance.total,
    planTokensRemaining: balance.planTokens,
    bonusTokens: balance.bonusTokens,
    planExpiresAt: user.planExpiresAt,
    nextRefillAt: user.nextRefillAt,
  };
}
