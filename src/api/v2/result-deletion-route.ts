import type Router from '@koa/router';
import type { ApiServices } from '../api-services';
import { authOf } from '../middleware/auth';
import { ErrorSchema } from '../openapi/components';
import { generationIdParams } from './path-params';
import { addRoute } from './route';

/** DELETE /generate/{id}: the owner deletes a finished result. */
export function registerResultDeletionRoute(router: Router, services: Pick<ApiServices, 'resultFiles'>): void {
  addRoute(
    router,
    {
      method: 'delete',
      path: '/generate/:id',
      operationId: 'deleteGeneration',
      summary: 'Delete a finished generation’s result: its file, text and prompt',
      description:
        'The result file is removed at once (its `result_url` answers 410), and the stored text and prompt are cleared. ' +
        'The generation stays in the request log with its model, tokens and times, marked `deleted_at`. Deleting it ' +
        'again is a 204 too; a generation still running answers 409 `generation_pending`.',
      tags: ['Generation'],
      security: 'bearer',
      params: generationIdParams,
      responses: {
        204: { description: 'Deleted' },
        400: { description: 'Not a generation id', schema: ErrorSchema },
        404: { description: 'No such generation of the caller', schema: ErrorSchema },
        409: { description: 'Still running (`generation_pending`)', schema: ErrorSchema },
      },
    },
    async (ctx, { params }) => {
      await services.resultFiles.deleteFor(authOf(ctx).userId, params.id);
      return undefined;
    },
  );
}
