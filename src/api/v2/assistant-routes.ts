import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../api-services';
import { authOf } from '../middleware/auth';
import { AssistantSchema, ErrorSchema, OwnAssistantSchema } from '../openapi/components';
import { idParams } from './path-params';
import { addRoute } from './route';

const name = z.string().trim().min(1, 'must not be empty').max(100);
const description = z.string().trim().max(500);
const modelSlug = z.string().trim().min(1).max(100).describe('a text model slug');
const systemPrompt = z.string().max(8000);

const createBody = z.strictObject({
  name,
  description: description.optional(),
  model_slug: modelSlug,
  system_prompt: systemPrompt.optional(),
});
const updateBody = z.strictObject({
  name: name.optional(),
  description: description.optional(),
  model_slug: modelSlug.optional(),
  system_prompt: systemPrompt.optional(),
  is_public: z.boolean().optional().describe('false takes a published assistant off the marketplace'),
});
const notFound = { description: 'No such assistant of the caller', schema: ErrorSchema };

export function registerAssistantRoutes(router: Router, services: Pick<ApiServices, 'assistants'>): void {
  const { assistants } = services;
  const tags = ['Assistants'];
  const list = (path: string, operationId: string, summary: string, schema: z.ZodType, load: (userId: number) => Promise<unknown>) =>
    addRoute(
      router,
      {
        method: 'get',
        path,
        operationId,
        summary,
        tags,
        security: 'bearer',
        responses: { 200: { description: 'Assistants', schema: z.array(schema) } },
      },
      async (ctx) => load(authOf(ctx).userId),
    );

  list('/assistants/system', 'listSystemAssistants', 'Built-in assistants', AssistantSchema, () => assistants.system());
  list('/assistants/user', 'listOwnAssistants', 'The caller’s assistants (with their instructions)', OwnAssistantSchema, (userId) =>
    assistants.own(userId),
  );
  list('/assistants/marketplace', 'listMarketplaceAssistants', 'Assistants published by the community', AssistantSchema, () =>
    assistants.marketplace(),
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/assistants',
      operationId: 'createAssistant',
      summary: 'Create an assistant (private until published)',
      tags,
      security: 'bearer',
      body: createBody,
      status: 201,
      responses: {
        201: { description: 'The new assistant', schema: OwnAssistantSchema },
        409: { description: 'Too many assistants (`quota_exceeded`)', schema: ErrorSchema },
      },
    },
    async (ctx, { body }) =>
      assistants.create(authOf(ctx).userId, {
        name: body.name,
        description: body.description,
        modelSlug: body.model_slug,
        systemPrompt: body.system_prompt,
      }),
  );

  addRoute(
    router,
    {
      method: 'patch',
      path: '/assistants/:id',
      operationId: 'updateAssistant',
      summary: 'Change one of the caller’s assistants',
      tags,
      security: 'bearer',
      params: idParams,
      body: updateBody,
      responses: { 200: { description: 'The updated assistant', schema: OwnAssistantSchema }, 404: notFound },
    },
    async (ctx, { params, body }) =>
      assistants.update(authOf(ctx).userId, params.id, {
        name: body.name,
        description: body.description,
        modelSlug: body.model_slug,
        systemPrompt: body.system_prompt,
        isPublic: body.is_public,
      }),
  );

  addRoute(
    router,
    {
      method: 'delete',
      path: '/assistants/:id',
      operationId: 'deleteAssistant',
      summary: 'Delete one of the caller’s assistants',
      tags,
      security: 'bearer',
      params: idParams,
      responses: { 204: { description: 'Deleted' }, 404: notFound },
    },
    async (ctx, { params }) => {
      await assistants.delete(authOf(ctx).userId, params.id);
      return undefined;
    },
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/assistants/:id/publish',
      operationId: 'publishAssistant',
      summary: 'Publish one of the caller’s assistants on the marketplace',
      tags,
      security: 'bearer',
      params: idParams,
      responses: { 200: { description: 'The published assistant', schema: OwnAssistantSchema }, 404: notFound },
    },
    async (ctx, { params }) => assistants.publish(authOf(ctx).userId, params.id),
  );
}
