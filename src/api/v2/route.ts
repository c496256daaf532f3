import type Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { z } from 'zod';
import { readJsonBody } from '../middleware/json-body';
import { parseInput } from '../middleware/validation';
import { documentOperation, OperationSpec } from '../openapi/registry';

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteDefinition<
  B extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  P extends z.ZodType | undefined,
> extends Omit<OperationSpec, 'body' | 'query' | 'params'> {
  body?: B;
  query?: Q;
  params?: P;
  /** Status of a successful answer: default 200 with a body, 204 without. */
  status?: number;
  /** Cap on the JSON body (default JSON_BODY_LIMIT_BYTES). */
  bodyLimitBytes?: number;
  /** Run before validation, e.g. a per-IP limit. */
  before?: Middleware[];
}

export interface RouteInput<B, Q, P> {
  body: Parsed<B>;
  query: Parsed<Q>;
  params: Parsed<P>;
}

/**
 * Adds a documented route: the zod schemas of `def` validate the path parameters, query and JSON body (400
 * `validation_error` naming the field) and describe the operation in the OpenAPI document. The handler gets
 * the parsed input and returns the response body (nothing: 204).
 */
export function addRoute<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
>(
  router: Router,
  def: RouteDefinition<B, Q, P>,
  handler: (ctx: ParameterizedContext, input: RouteInput<B, Q, P>) => Promise<unknown>,
): void {
  documentOperation(router, def as OperationSpec);
  const run: Middleware = async (ctx) => {
    const params = (def.params ? parseInput(def.params, ctx.params ?? {}, 'path') : undefined) as Parsed<P>;
    const query = (def.query ? parseInput(def.query, ctx.query, 'query') : undefined) as Parsed<Q>;
    const body = (
      def.body ? parseInput(def.body, await readJsonBody(ctx, { limitBytes: def.bodyLimitBytes }), 'body') : undefined
    ) as Parsed<B>;
    const result = await handler(ctx, { body, query, params });
    if (result !== undefined) {
      ctx.status = def.status ?? 200;
      ctx.body = result;
    } else if (ctx.body === undefined || ctx.body === null) {
      ctx.status = def.status ?? 204;
    }
  };
  router[def.method](def.path, ...(def.before ?? []), run);
}
