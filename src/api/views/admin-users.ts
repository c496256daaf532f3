// The console's accounts in their /api/v2/admin/users wire shapes: the User object plus what the operator needs.
import type { AdminUserDetail, AdminUserPage, AdminUserRecord, LedgerRecord } from '../../core/admin/user-desk';
import type { LinkOrigins } from '../../core/links/link-origins';
import { toUserBody } from './account';
import { toGenerationView } from './generation';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function adminUserView(u: AdminUserRecord) {
  return {
    ...toUserBody(u.summary),
    phone: u.phone,
    telegram_id: u.telegramId,
    telegram_username: u.summary.messengerUsername,
    plan_tokens_remaining: u.planTokens,
    bonus_tokens: u.bonusTokens,
    blocked: u.blocked,
    blocked_at: iso(u.blockedAt),
    blocked_reason: u.blockedReason,
    created_at: new Date(u.createdAt).toISOString(),
  };
}

export function adminUserPageView(p: AdminUserPage) {
  return { items: p.items.map(adminUserView), next_cursor: p.nextCursor };
}

export function ledgerEntryView(l: LedgerRecord) {
  return {
    id: l.id,
    kind: l.kind,
    reference: l.reference,
    plan_delta: l.planDelta,
    bonus_delta: l.bonusDelta,
    note: l.note,
    created_at: new Date(l.createdAt).toISOString(),
  };
}

export function adminUserDetailView(d: AdminUserDetail, links: LinkOrigins) {
  return {
    user: adminUserView(d.user),
    ledger: d.ledger.map(ledgerEntryView),
    keys: d.keys,
    sessions: d.sessions,
    generations: d.generations.map((g) => toGenerationView(g, links)),
  };
}
