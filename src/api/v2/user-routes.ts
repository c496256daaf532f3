import type Router from '@koa/router';
import { z } from 'zod';
import { LANGUAGES } from '../../core/accounts/settings';
import { CATEGORIES, IMAGE_FORMATS } from '../../core/catalog/types';
import { DOORS } from '../../core/stats/doors';
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT } from '../../core/stats/history';
import type { ApiServices } from '../api-services';
import { authOf, ownReadsOf } from '../middleware/auth';
import { BalanceSchema, ErrorSchema, HistoryPageSchema, SettingsSchema, StatsSchema, UserSchema } from '../openapi/components';
import { toBalanceBody, toUserBody } from '../views/account';
import { toHistoryPageBody } from '../views/generation';
import { addRoute } from './route';

const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

const profilePatch = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(100).optional(),
  avatar_url: httpUrl.nullable().optional().describe('an http(s) URL, or null to remove the picture'),
});

const settingsPatch = z.strictObject({
  language: z.enum(LANGUAGES).optional(),
  image_format: z.enum(IMAGE_FORMATS).optional(),
  notifications_enabled: z.boolean().optional(),
});

const isoDateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. 2026-01-31T00:00:00Z' });

const historyQuery = z.object({
  category: z.enum(CATEGORIES).optional(),
  model: z.string().trim().min(1).max(100).optional().describe('model slug'),
  status: z.enum(['pending', 'completed', 'failed']).optional(),
  door: z.enum(DOORS).optional().describe('web (a dashboard session), api (an API key), bot or schedule'),
  key: z.coerce.number().int().min(1).max(2_147_483_647).optional().describe('only requests made with this API key id'),
  from: isoDateTime.optional().describe('created at or after (inclusive)'),
  to: isoDateTime.optional().describe('created before (exclusive)'),
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
  deleted: z
    .enum(['include', 'exclude'])
    .default('include')
    .describe('`exclude` leaves out the results their owner deleted (they stay in the request log by default)'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(HISTORY_DEFAULT_LIMIT)
    .describe(`page size, default ${HISTORY_DEFAULT_LIMIT}; values above ${HISTORY_MAX_LIMIT} are capped to ${HISTORY_MAX_LIMIT}`),
});

/** /user/*: the caller's own account; nothing here can reach another account. */
export function registerUserRoutes(router: Router, services: Pick<ApiServices, 'config' | 'profiles' | 'settings' | 'usage'>): void {
  const { config, profiles, settings, usage } = services;
  const tags = ['User'];

  addRoute(
    router,
    {
      method: 'get',
      path: '/user/me',
      operationId: 'getMe',
      summary: 'The caller’s account',
      tags,
      security: 'bearer',
      responses: { 200: { description: 'The User object', schema: UserSchema } },
    },
    async (ctx) => {
      const { userId, plan } = authOf(ctx);
      return toUserBody(await profiles.describe(userId, plan));
    },
  );

  addRoute(
    router,
    {
      method: 'patch',
      path: '/user/me',
      operationId: 'updateMe',
      summary: 'Change the display name and/or the picture (nothing else is writable)',
      tags,
      security: 'bearer',
      body: profilePatch,
      responses: { 200: { description: 'The updated User object', schema: UserSchema } },
    },
    async (ctx, { body }) => {
      const { userId, plan } = authOf(ctx);
      return toUserBody(await profiles.update(userId, plan, { name: body.name, avatarUrl: body.avatar_url }));
    },
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/user/balance',
      operationId: 'getBalance',
      openToRestrictedKeys: true,
      summary: 'Token balance',
      tags,
      security: 'bearer',
      responses: { 200: { description: 'The Balance object', schema: BalanceSchema } },
    },
    async (ctx) => toBalanceBody(await profiles.balance(authOf(ctx).user)),
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/user/stats',
      operationId: 'getStats',
      openToRestrictedKeys: true,
      summary: 'Completed generations and tokens spent, by category and over the last 30 days',
      tags,
      security: 'bearer',
      responses: { 200: { description: 'The Stats object', schema: StatsSchema } },
    },
    async (ctx) => usage.userStats(authOf(ctx).userId, ownReadsOf(ctx)),
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/user/settings',
      operationId: 'getSettings',
      summary: 'Preferences',
      tags,
      security: 'bearer',
      responses: { 200: { description: 'The Settings object', schema: SettingsSchema } },
    },
    async (ctx) => settings.get(authOf(ctx).userId),
  );

  addRoute(
    router,
    {
      method: 'patch',
      path: '/user/settings',
      operationId: 'updateSettings',
      summary: 'Change language, image format or notifications',
      tags,
      security: 'bearer',
      body: settingsPatch,
      responses: { 200: { description: 'The updated Settings object', schema: SettingsSchema } },
    },
    async (ctx, { body }) =>
      settings.update(authOf(ctx).userId, {
        language: body.language,
        imageFormat: body.image_format,
        notificationsEnabled: body.notifications_enabled,
      }),
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/user/history',
      operationId: 'getHistory',
      openToRestrictedKeys: true,
      summary: 'The caller’s generations, newest first, with filters and cursor pagination',
      tags,
      security: 'bearer',
      query: historyQuery,
      responses: {
        200: { description: 'One page of Generation objects', schema: HistoryPageSchema },
        400: { description: 'Invalid filter or cursor', schema: ErrorSchema },
      },
    },
    async (ctx, { query }) => {
      const page = await usage.history(authOf(ctx).userId, {
        category: query.category,
        model: query.model,
        status: query.status,
        door: query.door,
        keyId: query.key,
        onlyKey: ownReadsOf(ctx),
        from: query.from ? new Date(query.from) : undefined,
        to: query.to ? new Date(query.to) : undefined,
        cursor: query.cursor,
        limit: query.limit,
        excludeDeleted: query.deleted === 'exclude',
      });
      return toHistoryPageBody(page, config.links);
    },
  );
}
