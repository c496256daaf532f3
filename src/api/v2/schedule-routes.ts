import Router from '@koa/router';
import { z } from 'zod';
import { MAX_INTERVAL_MINUTES, MIN_INTERVAL_MINUTES, type ScheduleRecord } from '../../core/schedules/schedules';
import type { ApiServices } from '../api-services';
import { actorOf, authOf } from '../middleware/auth';
import { ErrorSchema, ScheduleListSchema, ScheduleSchema } from '../openapi/components';
import { bodyFromRequest, parseGenerateBody, requestFromBody } from './generate-body';
import { idParams } from './path-params';
import { addRoute } from './route';

const createBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  request: z.record(z.string(), z.unknown()),
  interval_minutes: z.number().int().min(MIN_INTERVAL_MINUTES).max(MAX_INTERVAL_MINUTES),
  start_at: z.iso.datetime({ offset: true }).optional(),
});
const tags = ['Schedules'];
const notFound = { description: 'No such schedule of the caller', schema: ErrorSchema };

/** The schedule, with the request it runs as the POST /generate body that asks for it. */
function toScheduleBody(s: ScheduleRecord) {
  return {
    id: s.id,
    name: s.name,
    request: bodyFromRequest(s.request),
    interval_minutes: s.intervalMinutes,
    enabled: s.enabled,
    next_run_at: s.nextRunAt.toISOString(),
    last_run_at: s.lastRunAt ? s.lastRunAt.toISOString() : null,
    last_generation_id: s.lastGenerationId,
    last_error: s.lastError,
    created_at: s.createdAt.toISOString(),
    api_key_id: s.apiKeyId,
  };
}

/** Recurring generations: POST/GET /schedules, PATCH (enable/disable) and DELETE /schedules/{id}. */
export function registerScheduleRoutes(router: Router, services: Pick<ApiServices, 'schedules'>): void {
  addRoute(
    router,
    {
      method: 'post',
      path: '/schedules',
      operationId: 'createSchedule',
      summary: 'Run the same generate request every interval_minutes (billed per run)',
      tags,
      security: 'bearer',
      body: createBody,
      status: 201,
      responses: {
        201: { description: 'The schedule', schema: ScheduleSchema },
        403: {
          description: 'The plan does not include the model (`insufficient_plan`), or the key’s model list does not (`model_not_allowed`)',
          schema: ErrorSchema,
        },
        404: { description: 'The request names a model the catalog does not have (`model_not_found`)', schema: ErrorSchema },
        409: { description: 'The account has the maximum number of schedules (`quota_exceeded`)', schema: ErrorSchema },
        410: { description: '`model_retired`: the request names a retired model without a replacement', schema: ErrorSchema },
      },
    },
    async (ctx, { body }) => {
      // Validated like a POST /generate body, fields named as there.
      const request = requestFromBody(parseGenerateBody(body.request));
      const schedule = await services.schedules.create(actorOf(ctx), {
        name: body.name,
        request,
        intervalMinutes: body.interval_minutes,
        startAt: body.start_at ? new Date(body.start_at) : undefined,
      });
      return toScheduleBody(schedule);
    },
  );
  addRoute(
    router,
    {
      method: 'get',
      path: '/schedules',
      operationId: 'listSchedules',
      summary: 'Own schedules',
      tags,
      security: 'bearer',
      responses: { 200: { description: 'Own schedules', schema: ScheduleListSchema } },
    },
    async (ctx) => ({ schedules: (await services.schedules.list(authOf(ctx).userId)).map(toScheduleBody) }),
  );
  addRoute(
    router,
    {
      method: 'patch',
      path: '/schedules/:id',
      operationId: 'updateSchedule',
      summary: 'Enable or disable a schedule',
      tags,
      security: 'bearer',
      params: idParams,
      body: z.strictObject({ enabled: z.boolean() }),
      responses: { 200: { description: 'The schedule', schema: ScheduleSchema }, 404: notFound },
    },
    async (ctx, { params, body }) => toScheduleBody(await services.schedules.setEnabled(authOf(ctx).userId, params.id, body.enabled)),
  );
  addRoute(
    router,
    {
      method: 'delete',
      path: '/schedules/:id',
      operationId: 'deleteSchedule',
      summary: 'Delete a schedule',
      tags,
      security: 'bearer',
      params: idParams,
      responses: { 204: { description: 'Deleted' }, 404: notFound },
    },
    async (ctx, { params }) => {
      await services.schedules.delete(authOf(ctx).userId, params.id);
    },
  );
}
