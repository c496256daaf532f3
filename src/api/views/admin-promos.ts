// The console's promo codes in their /api/v2/admin wire shape.
import type { PromoRecord } from '../../core/promos/promo-service';

export function adminPromoView(p: PromoRecord) {
  return {
    id: p.id,
    code: p.code,
    bonus_tokens: p.bonusTokens,
    plan: p.planSlug,
    days: p.planDays,
    max_uses: p.maxUses,
    uses: p.uses,
    expires_at: p.expiresAt ? new Date(p.expiresAt).toISOString() : null,
    created_at: new Date(p.createdAt).toISOString(),
  };
}
