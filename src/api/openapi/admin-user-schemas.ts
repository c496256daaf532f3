// Wire shapes of the console's accounts routes (/api/v2/admin/users).
import { z } from 'zod';
import { SessionEntrySchema } from '../v2/account-routes';
import { ApiKeySchema, components, GenerationSchema, UserSchema } from './components';

function component<S extends z.ZodType>(id: string, schema: S, description: string): S {
  components.add(schema, { id, description });
  return schema;
}

const isoDate = z.string().describe('ISO 8601 UTC timestamp');

export const AdminUserSchema = component(
  'AdminUser',
  UserSchema.extend({
    phone: z.string().nullable().describe('E.164'),
    telegram_id: z.string().nullable().describe('the linked Telegram account’s id (a string: it may pass 2^53)'),
    telegram_username: z.string().nullable().describe('its Telegram username, without @ (as messenger_username)'),
    plan_tokens_remaining: z.number().int().describe('of token_balance, the plan’s tokens left this period'),
    bonus_tokens: z.number().int().describe('of token_balance, the bonus tokens (grants, promo codes, referrals)'),
    blocked: z.boolean().describe('a blocked account’s keys, sessions and bot chats are refused'),
    blocked_at: isoDate.nullable(),
    blocked_reason: z.string().nullable(),
    created_at: isoDate,
  }),
  'An account as the operator sees it: the User object, how to reach it, its balance split, whether it is blocked',
);

export const AdminUserPageSchema = component(
  'AdminUserPage',
  z.object({
    items: z.array(AdminUserSchema),
    next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  }),
  'One page of accounts, newest first',
);

export const LedgerEntrySchema = component(
  'AdminLedgerEntry',
  z.object({
    id: z.string().describe('increasing'),
    kind: z.enum(['grant', 'reserve', 'settle', 'release', 'refill', 'purchase', 'adjust', 'refund']),
    reference: z.string().nullable().describe('what caused it, e.g. `gen:42`'),
    plan_delta: z.number().int(),
    bonus_delta: z.number().int(),
    note: z.string().nullable(),
    created_at: isoDate,
  }),
  'One row of an account’s token ledger',
);

export const AdminUserDetailSchema = component(
  'AdminUserDetail',
  z.object({
    user: AdminUserSchema,
    ledger: z.array(LedgerEntrySchema).describe('the latest 20 ledger rows, newest first'),
    keys: z.array(ApiKeySchema).describe('its API keys'),
    sessions: z.array(SessionEntrySchema).describe('its live sign-in sessions, the most recently used first'),
    generations: z.array(GenerationSchema).describe('its latest 20 generations, newest first'),
  }),
  'One account: the account, its latest ledger rows and generations, its keys and live sessions',
);

export const SessionsRevokedSchema = component(
  'AdminSessionsRevoked',
  z.object({ revoked: z.number().int().describe('live sessions signed out') }),
  'What a sessions revoke did',
);
