import { aliasReasoningEffort, resolveModel } from '../../catalog/lifecycle';
import { ParamError } from '../../catalog/errors';
import { estimateChatReservation, estimatePromptTokens, priceChatUsage, resolveMaxTokens } from '../../catalog/pricing';
import { TextModel } from '../../catalog/types';
import { ChatRequest, ProviderName } from '../../providers/types';
import type { ProviderAdapter } from '../../providers/adapter';
import { assertKeyAllowsModel } from '../../accounts/key-limits';
import { assertRunnable, cannotServeNow } from '../access';
import { ChatInputMessage, checkChatRequest, documentsText, lowerDocuments, toolCallsText, withoutIgnored } from './request';
import type { ChatInput, ModelReplaced } from './types';
import { shapeTools } from './tool-shapes';
import { ProviderRouter } from '../../providers/router';
import { Actor } from '../service';

export const CHARS_PER_TOKEN = 4;

/** Hosted tool runs (web searches) a request's hold covers; more are billed up to the hold. */
const HOSTED_RUNS_HELD = 5;

export interface ChatPrepareDeps {
  adapters: Readonly<Record<ProviderName, ProviderAdapter>>;
  router: ProviderRouter;
}

/** The text a generation row keeps as its prompt: the message's text parts, or its tool calls. */
export function messageText(m: ChatInputMessage): string {
  const text =
    typeof m.content === 'string'
      ? m.content
      : m.content
          .filter((p) => p.type === 'text')
          .map((p) => p.text)
          .join(' ');
  return text || toolCallsText(m.toolCalls);
}

/** The prompt's estimated size: messages, and tool definitions and earlier tool calls, which are prompt text too. */
export function promptTokensOf(input: ChatInput): number {
  const chars =
    (input.tools ? JSON.stringify(input.tools).length : 0) +
    input.messages.reduce((n, m) => n + toolCallsText(m.toolCalls).length, 0) +
    documentsText(input.messages);
  return estimatePromptTokens(input.messages) + Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The model that answers a request for `slug`: itself, or its replacement when it is retired. */
export function textModelFor(slug: string): { model: TextModel; replaced?: ModelReplaced } {
  const resolved = resolveModel(slug);
  const model = resolved.model;
  if (model.category !== 'text') {
    throw new ParamError('model', `${slug} is not a text model: use POST /api/v2/generate`);
  }
  return resolved.replacedFrom !== undefined
    ? { model, replaced: { from: resolved.replacedFrom, shutdownAt: resolved.shutdownAt ?? null } }
    : { model };
}

/**
 * Everything decided before anything is held or called: the model, the key's and the plan's permission, the
 * parameters the model does not take, the vendor request without its messages, and the hold's size.
 * @throws ParamError and the access errors
 */
export function prepareChat(deps: ChatPrepareDeps, actor: Actor, asked: ChatInput) {
  const { model, replaced } = textModelFor(asked.model);
  const implied = replaced && asked.reasoningEffort === undefined ? aliasReasoningEffort(replaced.from) : undefined;
  const input = implied ? { ...asked, reasoningEffort: implied } : asked;
  // A key's model list names what its client asks for: a retired model's replacement answers for it.
  assertKeyAllowsModel(actor.key, replaced?.from ?? model.slug);
  const maxTokens = resolveMaxTokens(model, input.maxTokens);
  const chat = deps.adapters[model.provider].chat!;
  const upstream = model.upstreamModel;
  const documents = chat.supports('documents', upstream) ? input.messages : lowerDocuments(input.messages);
  const shapes = shapeTools(input.tools, documents, chat.supports('tool_shapes', upstream));
  const messages = shapes.messages;
  const ignored = checkChatRequest(model, chat, messages, input.temperature, { ...input, tools: shapes.tools }, maxTokens);
  const options = withoutIgnored({ ...input, tools: shapes.tools }, ignored);
  // Hosted tools run where the vendor runs them; elsewhere they are named as ignored.
  const hosted = (input.hostedTools ?? []).filter((t) => t.type === 'web_search' && chat.supports('web_search', upstream));
  const unhosted = (input.hostedTools ?? []).filter((t) => !hosted.includes(t)).map((t) => `tools.${t.type}`);
  assertRunnable(actor.plan, model, deps.router);
  const promptTokens = promptTokensOf(input);
  const choices = options.choices ?? 1;
  if (promptTokens >= model.config.max_context) {
    throw new ParamError('messages', `the conversation is longer than ${model.slug}'s context of ${model.config.max_context} tokens`);
  }
  const request: Omit<ChatRequest, 'messages'> = {
    upstreamModel: model.upstreamModel,
    maxTokens,
    temperature: options.temperature ?? undefined,
    tools: options.tools,
    toolChoice: options.toolChoice,
    parallelToolCalls: options.parallelToolCalls,
    responseFormat: options.responseFormat,
    stop: options.stop,
    topP: options.topP,
    seed: options.seed,
    presencePenalty: options.presencePenalty,
    frequencyPenalty: options.frequencyPenalty,
    user: options.user,
    reasoningEffort: options.reasoningEffort,
    thinking: options.thinking,
    keepReasoning: options.keepReasoning,
    metadata: options.metadata,
    serviceTier: options.serviceTier,
    store: options.store,
    promptCacheKey: options.promptCacheKey,
    safetyIdentifier: options.safetyIdentifier,
    choices: options.choices,
    logprobs: options.logprobs,
    topK: options.topK,
    verbosity: options.verbosity,
    ...(hosted.length > 0 ? { hostedTools: hosted } : {}),
  };
  return {
    model,
    replaced,
    /** The conversation as this vendor takes it (documents it cannot read as such given as text or PDFs). */
    messages,
    /** Custom and namespace tools' calls in the client's shape again, where the vendor was offered plain functions. */
    shapes,
    request,
    promptTokens,
    // Every choice may write up to the limit, and each is billed; a hosted search is held for a few runs.
    reserve:
      choices > 1 || hosted.length > 0
        ? priceChatUsage(model, {
            promptTokens,
            completionTokens: maxTokens * choices,
            ...(hosted.length > 0 ? { toolUses: { web_search: HOSTED_RUNS_HELD } } : {}),
          })
        : estimateChatReservation(model, promptTokens, maxTokens),
    ignored: [...ignored.params, ...new Set(unhosted)],
  };
}

export type PreparedChat = ReturnType<typeof prepareChat>;

/**
 * The request's model and its fallbacks (`fallbacks`, tried in order), each prepared as if asked alone: every one
 * must exist, be open to the key and the plan, and take the request. Those that cannot serve now are left out; when
 * none can, the first one's reason is thrown. @throws as `prepareChat`
 */
export function prepareCandidates(deps: ChatPrepareDeps, actor: Actor, input: ChatInput): PreparedChat[] {
  const slugs = [...new Set([input.model, ...(input.fallbacks ?? [])])];
  if (slugs.length === 1) return [prepareChat(deps, actor, input)];
  const servable: PreparedChat[] = [];
  let firstReason: unknown;
  for (const slug of slugs) {
    try {
      servable.push(prepareChat(deps, actor, { ...input, model: slug }));
    } catch (err) {
      if (!cannotServeNow(err)) throw err;
      firstReason ??= err;
    }
  }
  if (servable.length === 0) throw firstReason;
  return servable;
}
