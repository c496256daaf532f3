import type Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { readJsonBody } from '../../middleware/json-body';
import { parseInput } from '../../middleware/validation';
import { checkBodyCaps } from '../body-caps';
import { ChatRunServices, completeChat, streamChat } from '../chat-run';
import { WireNames, withWireNames } from '../wire-names';
import { documentMessages } from './openapi';
import { toChatInput, toConversation } from './request';
import { messageBody, writeMessageStream } from './response';
import { countTokensBody, messagesBody } from './schema';
import { reasoningEnvelope } from '../../../core/generations/chat/reasoning-envelope';

/** The Messages API's own request limit. */
const MESSAGES_BODY_LIMIT = 32 * 1024 * 1024;

/** The core's parameter names as the Messages API calls them. */
export const MESSAGES_NAMES: WireNames = {
  stop: 'stop_sequences',
  user: 'metadata.user_id',
  reasoning_effort: 'thinking',
  parallel_tool_calls: 'tool_choice.disable_parallel_tool_use',
  response_format: 'output_config.format',
};

/** The JSON body, within the documented caps (checked before the validation). */
async function readCappedBody(ctx: ParameterizedContext): Promise<unknown> {
  const raw = await readJsonBody(ctx, { limitBytes: MESSAGES_BODY_LIMIT });
  checkBodyCaps('messages', raw);
  return raw;
}

async function createMessage(ctx: ParameterizedContext, services: ChatRunServices): Promise<void> {
  const body = parseInput(messagesBody, await readCappedBody(ctx), 'body');
  const envelope = reasoningEnvelope(services.config.reasoningSecret);
  const input = toChatInput(body, envelope);
  if (!body.stream) {
    ctx.body = messageBody(await withWireNames(MESSAGES_NAMES, () => completeChat(ctx, services, input, MESSAGES_NAMES)), envelope);
    return;
  }
  const { stream, sse } = await withWireNames(MESSAGES_NAMES, () => streamChat(ctx, services, input, MESSAGES_NAMES));
  await writeMessageStream(stream, sse, envelope);
}

/** The prompt's size as the service estimates it for the hold; nothing is held, charged or counted against limits. */
async function countTokens(ctx: ParameterizedContext, services: ChatRunServices): Promise<void> {
  const body = parseInput(countTokensBody, await readCappedBody(ctx), 'body');
  const conversation = toConversation(body, reasoningEnvelope(services.config.reasoningSecret));
  ctx.body = { input_tokens: services.chat.countPromptTokens(conversation).promptTokens };
}

/** POST /v1/messages and /v1/messages/count_tokens: the Anthropic Messages API over the core's one chat request. */
export function registerMessagesRoutes(router: Router, services: ChatRunServices): void {
  documentMessages(router);
  router.post('/messages', (ctx) => createMessage(ctx, services));
  router.post('/messages/count_tokens', (ctx) => countTokens(ctx, services));
}
