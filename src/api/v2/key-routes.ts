import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../api-services';
import { authOf } from '../middleware/auth';
import { ApiKeyListSchema, ApiKeySchema, CreatedApiKeySchema, ErrorSchema } from '../openapi/components';
import { idParams } from './path-params';
import { addRoute } from './route';

const keyName = z.string().trim().min(1, 'must not be empty').max(100);
const keyBody = z.strictObject({ name: keyName });
const notFound = { description: 'No such key on this account', schema: ErrorSchema };

/** API keys of the caller. Another account's key ids answer 404. */
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
      body: keyBody,
      status: 201,
      responses: {
        201: { description: 'The new key', schema: CreatedApiKeySchema },
        409: { description: 'The account has the maximum number of keys (`quota_exceeded`)', schema: ErrorSchema },
      },
    },
    async (ctx, { body }) => services.createApiKey(authOf(ctx).userId, body.name),
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
      summary: 'Rename a key',
      tags,
      security: 'bearer',
      params: idParams,
      body: keyBody,
      responses: { 200: { description: 'The renamed key', schema: ApiKeySchema }, 404: notFound },
    },
    async (ctx, { params, body }) => apiKeys.rename(authOf(ctx).userId, params.id, body.name),
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
      await apiKeys.delete(authOf(ctx).userId, params.id);
      return undefined;
    },
  );
}
