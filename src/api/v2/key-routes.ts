import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../api-services';
import { authOf } from '../middleware/auth';
import { ApiKeyListSchema, ApiKeySchema, CreatedApiKeySchema, ErrorSchema } from '../openapi/components';
import { BUDGET_PERIODS } from '../../core/accounts/key-limits';
import { findModel } from '../../core/catalog/catalog';
import { idParams } from './path-params';
import { addRoute } from './route';

const keyName = z.string().trim().min(1, 'must not be empty').max(100);
const limitFields = {
  token_budget: z.number().int().min(0).max(2_000_000_000).nullable().optional(),
  budget_period: z.enum(BUDGET_PERIODS).optional(),
  models: z
    .array(z.string().refine((slug) => findModel(slug) !== undefined, 'is not a model of the catalog'))
    .min(1)
    .max(100)
    .nullable()
    .optional(),
  expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
};

/** The parsed limits as the core takes them: the expiry as a date, the model list without repeats. */
function limitsOf(body: { models?: string[] | null; expires_at?: string | null }) {
  return {
    ...body,
    models: body.models ? [...new Set(body.models)] : body.models,
    expires_at: typeof body.expires_at === 'string' ? new Date(body.expires_at) : body.expires_at,
  };
}
const createBody = z.strictObject({ name: keyName, ...limitFields });
const updateBody = z.strictObject({ name: keyName.optional(), ...limitFields });
const notFound = { description: 'No such key on this account', schema: ErrorSchema };

/**
 * API keys of the caller. Another account's key ids answer 404. A key with limits manages no keys (403
 * `key_restricted`), and no key creates or edits a key wider than itself (core/accounts/key-limits.ts).
 */
export function registerKeyRoutes(router: Router, services: Pick<ApiServices, 'apiKeys' | 'createApiKey'>): void {
  const { apiKeys } = services;
  const tags = ['API keys'];

  addRoute(
    router,
    {
      method: 'post',
      path: '/keys',
      operationId: 'createApiKey',
      summary: 'Create an API key; the full key is in this answer only',
      tags,
      security: 'bearer',
      body: createBody,
      status: 201,
      responses: {
        201: { description: 'The new key', schema: CreatedApiKeySchema },
        409: { description: 'The account has the maximum number of keys (`quota_exceeded`)', schema: ErrorSchema },
      },
    },
    async (ctx, { body }) => {
      const { name, ...limits } = body;
      const auth = authOf(ctx);
      return services.createApiKey(auth.userId, name, limitsOf(limits), auth.key);
    },
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/keys',
      operationId: 'listApiKeys',
      summary: 'The caller’s keys, masked',
      tags,
      security: 'bearer',
      responses: { 200: { description: 'Keys', schema: ApiKeyListSchema } },
    },
    async (ctx) => ({ keys: await apiKeys.list(authOf(ctx).userId) }),
  );

  addRoute(
    router,
    {
      method: 'patch',
      path: '/keys/:id',
      operationId: 'renameApiKey',
      summary: 'Rename a key or change its limits (a field left out stays as it is; null removes a limit)',
      tags,
      security: 'bearer',
      params: idParams,
      body: updateBody,
      responses: { 200: { description: 'The changed key', schema: ApiKeySchema }, 404: notFound },
    },
    async (ctx, { params, body }) => {
      const auth = authOf(ctx);
      return apiKeys.update(auth.userId, params.id, limitsOf(body), auth.key);
    },
  );

  addRoute(
    router,
    {
      method: 'delete',
      path: '/keys/:id',
      operationId: 'deleteApiKey',
      summary: 'Delete a key: it stops working at once, on every instance',
      tags,
      security: 'bearer',
      params: idParams,
      responses: { 204: { description: 'Deleted' }, 404: notFound },
    },
    async (ctx, { params }) => {
      const auth = authOf(ctx);
      await apiKeys.delete(auth.userId, params.id, auth.key);
      return undefined;
    },
  );
}
