// The spec's User and Balance objects, as the API renders the core's account summaries (the CLI prints the same).
import type { AccountSummary, BalanceSummary } from '../../core/accounts/summaries';

const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

export function toUserBody(a: AccountSummary) {
  return {
    id: a.id,
    name: a.name,
    email: a.email,
    email_verified: a.emailVerified,
    messenger_username: a.messengerUsername,
    avatar_url: a.avatarUrl,
    plan: a.plan,
    plan_expires_at: isoOrNull(a.planExpiresAt),
    token_balance: a.tokenBalance,
    token_limit: a.tokenLimit,
    tokens_used_this_period: a.tokensUsedThisPeriod,
    rate_limit_hourly: a.rateLimitHourly,
    rate_limit_daily: a.rateLimitDaily,
    is_admin: a.isAdmin,
    auth_methods: { messenger: a.signIn.messenger, identity_provider: a.signIn.identityProvider, email: a.signIn.email },
  };
}

export function toBalanceBody(b: BalanceSummary) {
  return {
    plan: b.plan,
    token_balance: b.tokenBalance,
    plan_tokens_remaining: b.planTokensRemaining,
    bonus_tokens: b.bonusTokens,
    plan_expires_at: isoOrNull(b.planExpiresAt),
    next_refill_at: b.nextRefillAt.toISOString(),
  };
}
