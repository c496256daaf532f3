// Wire shapes of the console's promo-code routes (/api/v2/admin/promo-codes).
import { z } from 'zod';
import { components } from './components';

export const AdminPromoCodeSchema = z.object({
  id: z.number().int(),
  code: z.string().describe('what users type: `/redeem CODE` in the bot, or POST /api/v2/user/redeem'),
  bonus_tokens: z.number().int().nullable().describe('bonus tokens it gives; null for a plan code'),
  plan: z.string().nullable().describe('the plan it gives; null for a tokens code'),
  days: z.number().int().nullable().describe('days of the plan'),
  max_uses: z.number().int().describe('accounts that may redeem it (each once)'),
  uses: z.number().int().describe('accounts that have redeemed it'),
  expires_at: z.string().nullable().describe('ISO 8601; null: it does not expire'),
  created_at: z.string(),
});
components.add(AdminPromoCodeSchema, { id: 'AdminPromoCode', description: 'A promo code as the operator sees it' });

export const AdminPromoCodePageSchema = z.object({
  items: z.array(AdminPromoCodeSchema),
  next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
});
components.add(AdminPromoCodePageSchema, { id: 'AdminPromoCodePage', description: 'One page of promo codes, newest first' });
