import type Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { z } from 'zod';
import { ParamError } from '../../../core/catalog/errors';
import { reasoningEnvelope } from '../../../core/generations/chat/reasoning-envelope';
import type { Owner } from '../../../core/responses/stored-responses';
import type { ApiServices } from '../../api-services';
import { actorOf, authOf, ownReadsOf } from '../../middleware/auth';
import { readJsonBody } from '../../middleware/json-body';
import { requestLog } from '../../middleware/request-context';
import { parseInput } from '../../middleware/validation';
import { checkBodyCaps } from '../body-caps';
import { ChatRunServices, completeChat, streamChat } from '../chat-run';
import { WireNames, withWireNames } from '../wire-names';
import { contextOf, inputItemsView } from './context';
import { documentResponses } from './openapi';
import { refuseUnknownResponsesParameters, toChatInput } from './request';
import { clientView, pendingResponse, responseBodies, responseFrame, writeResponseStream } from './response';
import { ENCRYPTED_CONTENT } from './reasoning-items';
import { responsesBody } from './schema';

const RESPONSES_BODY_LIMIT = 30 * 1024 * 1024;
/** How long a cancel waits for a running background response to stop before it answers with its state. */
const CANCEL_WAIT_MS = 5000;

/** The core's parameter names as the Responses API calls them. */
export const RESPONSES_NAMES: WireNames = {
  response_format: 'text.format',
  max_tokens: 'max_output_tokens',
  messages: 'input',
  reasoning_effort: 'reasoning.effort',
  verbosity: 'text.verbosity',
  top_logprobs: 'top_logprobs',
};

export type ResponsesServices = ChatRunServices & Pick<ApiServices, 'responses' | 'preflight'>;

/** Whose stored responses the caller reads: its account's, or only its own key's when the key is restricted. */
function ownerOf(ctx: ParameterizedContext): Owner {
  const keyId = ownReadsOf(ctx);
  return { userId: authOf(ctx).user.id, ...(keyId !== undefined ? { keyId } : {}) };
}

async function createResponse(ctx: ParameterizedContext, services: ResponsesServices): Promise<void> {
  const raw = await readJsonBody(ctx, { limitBytes: RESPONSES_BODY_LIMIT });
  checkBodyCaps('responses', raw);
  refuseUnknownResponsesParameters(raw);
  const body = parseInput(responsesBody, raw, 'body');
  const envelope = reasoningEnvelope(services.config.reasoningSecret);
  const frame = responseFrame(body, envelope);
  if (frame.background && !frame.store) throw new ParamError('background', 'Background mode requires `store` to be true.');
  const context = await contextOf(services, ownerOf(ctx), body);
  const withContext = { ...body, input: context.items };
  const { input, ignored } = toChatInput(withContext, envelope);
  const actor = actorOf(ctx);
  if (frame.background) {
    if (body.stream) {
      throw new ParamError('stream', 'a background response is not streamed here: poll it with GET /v1/responses/{id}');
    }
    // Everything the run would refuse is refused now; the limits and the balance are looked at (nothing is held).
    const model = services.chat.check(actor, input);
    await services.preflight.check(actor, model);
    const queued = pendingResponse(frame, model.slug, 'queued');
    await services.responses.queueBackground(actor, {
      id: frame.id,
      response: queued,
      inputItems: context.items as Record<string, unknown>[],
      request: { ...withContext, created_at: frame.createdAt },
    });
    ctx.body = clientView(queued, frame.reasoning.encrypted);
    return;
  }
  if (!body.stream) {
    const out = await withWireNames(RESPONSES_NAMES, () => completeChat(ctx, services, input, RESPONSES_NAMES, ignored));
    const { client, stored } = responseBodies(frame, out);
    if (frame.store) await keep(ctx, services, actor, frame.id, stored, context.items);
    ctx.body = client;
    return;
  }
  const { stream, sse } = await withWireNames(RESPONSES_NAMES, () => streamChat(ctx, services, input, RESPONSES_NAMES, ignored));
  const stored = await writeResponseStream(frame, stream, sse);
  if (frame.store) await keep(ctx, services, actor, frame.id, stored, context.items);
}

/** Stores an answered response; one the database cannot take stays unstored (the client already has it). */
async function keep(
  ctx: ParameterizedContext,
  services: ResponsesServices,
  actor: ReturnType<typeof actorOf>,
  id: string,
  response: Record<string, unknown>,
  inputItems: readonly unknown[],
): Promise<void> {
  try {
    const status = String(response.status) as 'completed' | 'incomplete' | 'failed';
    await services.responses.save(actor, { id, status, background: false, response, inputItems: inputItems as Record<string, unknown>[] });
  } catch (err) {
    requestLog(ctx).warn({ err, response: id }, 'an answered response could not be stored');
  }
}

/** `include`, as `include[]=…` or `include=…`: whether encrypted reasoning is shown. */
function includesEncrypted(ctx: ParameterizedContext): boolean {
  const raw = ctx.query['include[]'] ?? ctx.query.include;
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return values.includes(ENCRYPTED_CONTENT);
}

const idParams = z.object({ id: z.string().min(1).max(200) });
const listQuery = z.object({
  after: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
});

async function retrieve(ctx: ParameterizedContext, services: ResponsesServices): Promise<void> {
  const { id } = parseInput(idParams, ctx.params, 'path');
  const r = await services.responses.get(ownerOf(ctx), id);
  ctx.body = clientView(r.response, includesEncrypted(ctx));
}

async function listInputItems(ctx: ParameterizedContext, services: ResponsesServices): Promise<void> {
  const { id } = parseInput(idParams, ctx.params, 'path');
  const { after, limit, order } = parseInput(
    listQuery,
    { after: ctx.query.after, limit: ctx.query.limit, order: ctx.query.order },
    'query',
  );
  const page = await services.responses.inputItems(ownerOf(ctx), id, { ...(after ? { after } : {}), limit, order });
  const data = inputItemsView(page.data, includesEncrypted(ctx));
  const idOf = (item: Record<string, unknown> | undefined) => (typeof item?.id === 'string' ? item.id : null);
  ctx.body = { object: 'list', data, first_id: idOf(data[0]), last_id: idOf(data[data.length - 1]), has_more: page.hasMore };
}

async function remove(ctx: ParameterizedContext, services: ResponsesServices): Promise<void> {
  const { id } = parseInput(idParams, ctx.params, 'path');
  await services.responses.delete(ownerOf(ctx), id);
  ctx.body = { id, object: 'response', deleted: true };
}

/** Cancels a background response: a queued one at once; a running one stops within moments (billed for what was written). */
async function cancel(ctx: ParameterizedContext, services: ResponsesServices): Promise<void> {
  const { id } = parseInput(idParams, ctx.params, 'path');
  const owner = ownerOf(ctx);
  let r = await services.responses.requestCancel(owner, id);
  const deadline = Date.now() + CANCEL_WAIT_MS;
  while (r.status === 'in_progress' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    r = await services.responses.get(owner, id);
  }
  ctx.body = clientView(r.response, includesEncrypted(ctx));
}

/** The OpenAI Responses API over the core's one chat request, with its stored responses and background runs. */
export function registerResponsesRoutes(router: Router, services: ResponsesServices): void {
  documentResponses(router);
  router.post('/responses', (ctx) => createResponse(ctx, services));
  router.get('/responses/:id', (ctx) => retrieve(ctx, services));
  router.get('/responses/:id/input_items', (ctx) => listInputItems(ctx, services));
  router.delete('/responses/:id', (ctx) => remove(ctx, services));
  router.post('/responses/:id/cancel', (ctx) => cancel(ctx, services));
}
