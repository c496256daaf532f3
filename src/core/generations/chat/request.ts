import { ParamError } from '../../catalog/errors';
import { TextModel } from '../../catalog/types';
import { documentText } from '../../providers/documents';
import {
  CacheMark,
  ChatCapability,
  ChatContentPart,
  ChatMessage,
  ChatOption,
  ChatOptions,
  ChatReasoning,
  ChatRequestTraits,
  ChatToolCall,
  ProviderName,
} from '../../providers/types';

export type { ChatOptions } from '../../providers/types';

/** An image given by reference (https or `data:`), fetched through the SSRF policy before the vendor call. */
export interface ChatImageRef {
  type: 'image_url';
  url: string;
  /** Where the request put it, for errors (default: its chat-completions place, `messages.N.content.M.image_url`). */
  field?: string;
  cache?: CacheMark;
}

export type ChatInputPart = ChatContentPart | ChatImageRef;

export interface ChatInputMessage {
  role: ChatMessage['role'];
  content: string | ChatInputPart[];
  /** assistant: the turn's reasoning as a client replays it (any vendor's; only the answering vendor's is sent). */
  reasoning?: ChatReasoning[];
  toolCalls?: ChatToolCall[];
  toolCallId?: string;
}

/**
 * Options a vendor model may go without: labels, hints, best-effort controls and sampling controls (a model without
 * sampling control answers as it would anyway). Where the model has no equivalent they are dropped and named as
 * ignored, never refused (decisions, wave 3 "The compatible surface, revised" and wave 4 "round 3").
 */
const IGNORABLE: ReadonlySet<ChatOption> = new Set<ChatOption>([
  'temperature',
  'top_p',
  'top_k',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'verbosity',
  'parallel_tool_calls',
  'seed',
  'user',
  'reasoning_effort',
  'metadata',
  'service_tier',
  'store',
  'prompt_cache_key',
  'cache_control',
  'safety_identifier',
]);

/** The option as the request sets it and the chat-completions parameter that carries it. */
type Requested = [ChatOption, string];

const marked = (parts: string | ReadonlyArray<{ cache?: unknown }>) => typeof parts !== 'string' && parts.some((p) => p.cache);

/** Whether a cache breakpoint is set anywhere: a content part, a tool call or a tool. */
function hasCacheMarks(messages: readonly ChatInputMessage[], options: ChatOptions): boolean {
  return (options.tools ?? []).some((t) => t.cache) || messages.some((m) => marked(m.content) || (m.toolCalls ?? []).some((c) => c.cache));
}

/** Which option a request sets, under its chat-completions parameter name. */
function requestedOptions(
  options: ChatOptions,
  temperature: number | null | undefined,
  messages: readonly ChatInputMessage[] = [],
): Requested[] {
  const out: Requested[] = [];
  // A temperature of 1 is every vendor's default, so models that only take the default accept it.
  if (temperature !== undefined && temperature !== null && temperature !== 1) out.push(['temperature', 'temperature']);
  if (options.tools?.length) out.push(['tools', 'tools']);
  if (options.parallelToolCalls === false) out.push(['parallel_tool_calls', 'parallel_tool_calls']);
  if (options.responseFormat?.type === 'json_object') out.push(['response_format.json_object', 'response_format']);
  if (options.responseFormat?.type === 'json_schema') out.push(['response_format.json_schema', 'response_format']);
  if (options.stop?.length) out.push(['stop', 'stop']);
  if (options.topP !== undefined) out.push(['top_p', 'top_p']);
  if (options.seed !== undefined) out.push(['seed', 'seed']);
  if (options.presencePenalty !== undefined) out.push(['presence_penalty', 'presence_penalty']);
  if (options.frequencyPenalty !== undefined) out.push(['frequency_penalty', 'frequency_penalty']);
  if (options.user !== undefined) out.push(['user', 'user']);
  if (options.reasoningEffort !== undefined || options.thinking !== undefined) out.push(['reasoning_effort', 'reasoning_effort']);
  if (options.metadata !== undefined) out.push(['metadata', 'metadata']);
  if (options.serviceTier !== undefined) out.push(['service_tier', 'service_tier']);
  if (options.store !== undefined) out.push(['store', 'store']);
  if (options.promptCacheKey !== undefined) out.push(['prompt_cache_key', 'prompt_cache_key']);
  if (hasCacheMarks(messages, options)) out.push(['cache_control', 'cache_control']);
  if (options.safetyIdentifier !== undefined) out.push(['safety_identifier', 'safety_identifier']);
  if (options.choices !== undefined && options.choices > 1) out.push(['n', 'n']);
  if (options.logprobs !== undefined) out.push(['logprobs', options.logprobs.top > 0 ? 'top_logprobs' : 'logprobs']);
  if (options.topK !== undefined) out.push(['top_k', 'top_k']);
  if (options.verbosity !== undefined) out.push(['verbosity', 'verbosity']);
  return out;
}

function hasImages(messages: readonly ChatInputMessage[]): boolean {
  return messages.some((m) => typeof m.content !== 'string' && m.content.some((p) => p.type === 'image' || p.type === 'image_url'));
}

/** Where the first document part is, as its field name. */
function firstFilePart(messages: readonly ChatInputMessage[]): string | undefined {
  for (const [i, m] of messages.entries()) {
    if (typeof m.content === 'string') continue;
    const j = m.content.findIndex((p) => p.type === 'file');
    if (j >= 0) return `messages.${i}.content.${j}`;
  }
  return undefined;
}

/** Every tool message answers a call an earlier assistant message made. */
function checkToolRoundTrip(messages: readonly ChatInputMessage[]): void {
  const calls = new Set<string>();
  messages.forEach((m, i) => {
    for (const call of m.toolCalls ?? []) calls.add(call.id);
    if (m.role === 'tool' && !calls.has(m.toolCallId ?? '')) {
      throw new ParamError(
        `messages.${i}.tool_call_id`,
        `messages.${i}: tool_call_id does not answer a tool call of an earlier assistant message`,
      );
    }
  });
}

function checkToolChoice(options: ChatOptions): void {
  const choice = options.toolChoice;
  if (choice === undefined || choice === 'auto' || choice === 'none') return;
  const names = new Set((options.tools ?? []).map((t) => t.name));
  if (names.size === 0) throw new ParamError('tool_choice', 'tool_choice requires tools');
  if (typeof choice === 'object' && !names.has(choice.name)) {
    throw new ParamError('tool_choice', `tool_choice names ${choice.name}, which is not among the tools`);
  }
}

/** The parameters a request set that the model does not take: dropped before the vendor call and named to the client. */
export interface IgnoredOptions {
  options: ReadonlySet<ChatOption>;
  /** Their request parameter names, in request order (for `X-Ignored-Parameters`). */
  params: string[];
}

/**
 * Checks a chat request against the model and its adapter: roles in order, images only for vision models, documents
 * only where the vendor reads them, and every optional parameter one the adapter honours. Labels and hints the model
 * does not take come back as ignored. @throws ParamError
 */
export function checkChatRequest(
  model: TextModel,
  chat: ChatCapability,
  messages: readonly ChatInputMessage[],
  temperature: number | null | undefined,
  options: ChatOptions,
  maxTokens: number,
): IgnoredOptions {
  if (messages.length === 0) throw new ParamError('messages', 'messages must not be empty');
  const last = messages[messages.length - 1].role;
  if (last !== 'user' && last !== 'tool') {
    throw new ParamError('messages', 'the final message must have role "user" (or "tool", answering a tool call)');
  }
  if (hasImages(messages) && !model.config.supports_vision) {
    throw new ParamError('messages', `${model.slug} does not accept images: choose a model with config.supports_vision`);
  }
  const filePart = firstFilePart(messages);
  if (filePart !== undefined && !(model.config.supports_vision && chat.supports('pdf', model.upstreamModel))) {
    throw new ParamError(filePart, `${filePart}: content part type "file" (a PDF document) is not supported by ${model.slug}`);
  }
  checkToolRoundTrip(messages);
  const requested = requestedOptions(options, temperature, messages);
  const unreasoned = (m: ChatInputMessage) => (m.toolCalls?.length ?? 0) > 0 && !m.reasoning?.some((r) => r.provider === model.provider);
  const lastCalling = [...messages].reverse().find((m) => (m.toolCalls?.length ?? 0) > 0);
  const traits: ChatRequestTraits = {
    options: new Set(requested.map(([option]) => option)),
    toolChoice: options.toolChoice,
    toolTurns: messages.some((m) => m.role === 'tool' || (m.toolCalls?.length ?? 0) > 0),
    unreasonedToolTurns: messages.some(unreasoned),
    unreasonedToolLoop: last === 'tool' && lastCalling !== undefined && unreasoned(lastCalling),
    maxTokens,
    ...(temperature !== undefined && temperature !== null ? { temperature } : {}),
    ...(options.topP !== undefined ? { topP: options.topP } : {}),
  };
  const ignored = new Set<ChatOption>();
  const params: string[] = [];
  for (const [option, param] of requested) {
    const catalogAllows = option !== 'reasoning_effort' || model.config.supports_reasoning_effort;
    if (catalogAllows && chat.supports(option, model.upstreamModel, traits)) continue;
    if (IGNORABLE.has(option)) {
      ignored.add(option);
      params.push(param);
      continue;
    }
    const what = option.startsWith('response_format.') ? `response_format ${option.slice('response_format.'.length)}` : param;
    throw new ParamError(param, `${what} is not supported by ${model.slug}`);
  }
  checkToolChoice(options);
  return { options: ignored, params };
}

/** The request without the options the model ignores, so no adapter sends what its vendor would refuse. */
export function withoutIgnored<T extends ChatOptions & { temperature?: number | null }>(options: T, ignored: IgnoredOptions): T {
  const out = { ...options };
  const drop = ignored.options;
  if (drop.has('temperature')) delete out.temperature;
  if (drop.has('top_p')) delete out.topP;
  if (drop.has('top_k')) delete out.topK;
  if (drop.has('stop')) delete out.stop;
  if (drop.has('presence_penalty')) delete out.presencePenalty;
  if (drop.has('frequency_penalty')) delete out.frequencyPenalty;
  if (drop.has('verbosity')) delete out.verbosity;
  if (drop.has('parallel_tool_calls')) delete out.parallelToolCalls;
  if (drop.has('seed')) delete out.seed;
  if (drop.has('user')) delete out.user;
  if (drop.has('reasoning_effort')) {
    delete out.reasoningEffort;
    delete out.thinking;
  }
  if (drop.has('metadata')) delete out.metadata;
  if (drop.has('service_tier')) delete out.serviceTier;
  if (drop.has('store')) delete out.store;
  if (drop.has('prompt_cache_key')) delete out.promptCacheKey;
  if (drop.has('safety_identifier')) delete out.safetyIdentifier;
  return out;
}

/**
 * Reasoning goes back only to the vendor that produced it: another vendor can neither read nor verify it (a model
 * switched mid-conversation starts its reasoning afresh).
 */
export function reasoningFor<M extends Pick<ChatInputMessage, 'reasoning'>>(provider: ProviderName, messages: readonly M[]): M[] {
  return messages.map((m) => {
    if (m.reasoning === undefined) return m;
    const own = m.reasoning.filter((r) => r.provider === provider);
    if (own.length === m.reasoning.length) return m;
    const { reasoning: _dropped, ...rest } = m;
    return (own.length > 0 ? { ...rest, reasoning: own } : rest) as M;
  });
}

/**
 * Documents and search results for a vendor that reads neither as such: a PDF becomes a `file` part (the vendors that
 * read PDFs), anything else its text. A document by URL only Claude fetches. @throws ParamError
 */
export function lowerDocuments(messages: readonly ChatInputMessage[]): ChatInputMessage[] {
  return messages.map((m, i) => {
    if (typeof m.content === 'string' || !m.content.some((p) => p.type === 'document' || p.type === 'search_result')) return m;
    const content = m.content.map((p, j): ChatInputPart => {
      if (p.type === 'search_result') return { type: 'text', text: documentText(p) };
      if (p.type !== 'document') return p;
      if (p.source.type === 'pdf') {
        return { type: 'file', mime: 'application/pdf', data: p.source.data, ...(p.title !== undefined ? { filename: p.title } : {}) };
      }
      if (p.source.type === 'url') {
        throw new ParamError(
          `messages.${i}.content.${j}.source`,
          `messages.${i}.content.${j}: a document by URL is read only by Claude models; send it as base64 data`,
        );
      }
      return { type: 'text', text: documentText(p) };
    });
    return { ...m, content };
  });
}

/** The text of documents and search results, which is prompt text too. */
export function documentsText(messages: readonly ChatInputMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    if (typeof m.content === 'string') continue;
    for (const p of m.content) if (p.type === 'document' || p.type === 'search_result') chars += documentText(p).length;
  }
  return chars;
}

/** The messages as the vendor takes them when none refers to an image to fetch; undefined when one does. */
export function withoutImageRefs(messages: readonly ChatInputMessage[]): ChatMessage[] | undefined {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    if (typeof m.content !== 'string' && m.content.some((p) => p.type === 'image_url')) return undefined;
    out.push(m as ChatMessage);
  }
  return out;
}

/** Replaces image references by their bytes, in order. */
export async function resolveImages(
  messages: readonly ChatInputMessage[],
  fetchImage: (field: string, url: string) => Promise<{ data: Buffer; mime: string }>,
): Promise<ChatMessage[]> {
  const out: ChatMessage[] = [];
  for (const [i, m] of messages.entries()) {
    if (typeof m.content === 'string') {
      out.push({ ...m, content: m.content });
      continue;
    }
    const parts: ChatContentPart[] = [];
    for (const [j, part] of m.content.entries()) {
      if (part.type !== 'image_url') parts.push(part);
      else {
        const image = await fetchImage(part.field ?? `messages.${i}.content.${j}.image_url`, part.url);
        parts.push({ type: 'image', ...image, ...(part.cache ? { cache: part.cache } : {}) });
      }
    }
    out.push({ ...m, content: parts });
  }
  return out;
}

/** What a tool-calling answer adds to the completion: the calls' names and arguments, as the model wrote them. */
export function toolCallsText(calls: readonly ChatToolCall[] | undefined): string {
  return (calls ?? []).map((c) => `${c.name}(${c.arguments})`).join('\n');
}
