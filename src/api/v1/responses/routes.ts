import type Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { readJsonBody } from '../../middleware/json-body';
import { parseInput } from '../../middleware/validation';
import { checkBodyCaps } from '../body-caps';
import { ChatRunServices, completeChat, streamChat } from '../chat-run';
import { WireNames, withWireNames } from '../wire-names';
import { documentResponses } from './openapi';
import { refuseUnknownResponsesParameters, toChatInput } from './request';
import { responseBody, responseFrame, writeResponseStream } from './response';
import { responsesBody } from './schema';
import { reasoningEnvelope } from '../../../core/generations/chat/reasoning-envelope';

const RESPONSES_BODY_LIMIT = 30 * 1024 * 1024;

/** The core's parameter names as the Responses API calls them. */
export const RESPONSES_NAMES: WireNames = {
  response_format: 'text.format',
  max_tokens: 'max_output_tokens',
  messages: 'input',
  reasoning_effort: 'reasoning.effort',
  verbosity: 'text.verbosity',
  top_logprobs: 'top_logprobs',
};

async function createResponse(ctx: ParameterizedContext, services: ChatRunServices): Promise<void> {
  const raw = await readJsonBody(ctx, { limitBytes: RESPONSES_BODY_LIMIT });
  checkBodyCaps('responses', raw);
  refuseUnknownResponsesParameters(raw);
  const body = parseInput(responsesBody, raw, 'body');
  const envelope = reasoningEnvelope(services.config.reasoningSecret);
  const { input, ignored } = toChatInput(body, envelope);
  const frame = responseFrame(body, envelope);
  if (!body.stream) {
    ctx.body = responseBody(
      frame,
      await withWireNames(RESPONSES_NAMES, () => completeChat(ctx, services, input, RESPONSES_NAMES, ignored)),
    );
    return;
  }
  const { stream, sse } = await withWireNames(RESPONSES_NAMES, () => streamChat(ctx, services, input, RESPONSES_NAMES, ignored));
  await writeResponseStream(frame, stream, sse);
}

/** POST /v1/responses: the OpenAI Responses API (stateless subset) over the core's one chat request. */
export function registerResponsesRoutes(router: Router, services: ChatRunServices): void {
  documentResponses(router);
  router.post('/responses', (ctx) => createResponse(ctx, services));
}
