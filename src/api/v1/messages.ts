import { fallbacksOf } from './fallback-models';
import { ParamError } from '../../core/catalog/errors';
import type { ChatInput } from '../../core/generations/chat/types';
import type { ChatInputMessage, ChatInputPart, ChatOptions } from '../../core/generations/chat/request';
import type { CacheMark, ChatResponseFormat, ProviderName } from '../../core/providers/types';
import type { ReasoningEnvelope } from '../../core/generations/chat/reasoning-envelope';
import { catalogEntry } from '../../core/catalog/lifecycle';
import { replayedReasoning } from './chat-reasoning';
import { ChatCompletionBody, KNOWN_PARAMETERS } from './schemas';

type WireMessage = ChatCompletionBody['messages'][number];
type WireUserPart = Exclude<Extract<WireMessage, { role: 'user' }>['content'], string>[number];

const PDF_MAGIC = Buffer.from('%PDF-');

/** A `file` part's `file_data` (a base64 `data:` URI of a PDF, or bare base64) as the document's bytes. */
export function pdfPart(file: { file_data?: string; file_id?: string; filename?: string }, field: string): ChatInputPart {
  if (file.file_data === undefined) {
    const why = file.file_id !== undefined ? 'file_id is not supported (uploaded files are not kept here)' : 'file_data is required';
    throw new ParamError(`${field}.file`, `${field}.file: ${why}; send the document inline as file_data (base64)`);
  }
  const uri = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(file.file_data);
  if (uri && uri[1] !== 'application/pdf') {
    throw new ParamError(
      `${field}.file.file_data`,
      `${field}.file.file_data: only PDF documents (application/pdf) are read, not ${uri[1]}`,
    );
  }
  const data = Buffer.from(uri ? uri[2] : file.file_data, 'base64');
  if (!data.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
    throw new ParamError(`${field}.file.file_data`, `${field}.file.file_data: not a base64-encoded PDF document`);
  }
  return { type: 'file', mime: 'application/pdf', data, ...(file.filename !== undefined ? { filename: file.filename } : {}) };
}

type WireCache = { type: 'ephemeral'; ttl?: '5m' | '1h' } | null | undefined;

/** A cache_control (on a part, a message or a tool) as the core's cache mark. */
export function markOf(control: WireCache): { cache?: CacheMark } {
  return control ? { cache: control.ttl ? { ttl: control.ttl } : {} } : {};
}

function userPart(p: WireUserPart, field: string): ChatInputPart {
  switch (p.type) {
    case 'text':
      return { type: 'text', text: p.text, ...markOf(p.cache_control) };
    case 'image_url':
      return { type: 'image_url', url: typeof p.image_url === 'string' ? p.image_url : p.image_url.url, ...markOf(p.cache_control) };
    case 'file':
      return { ...pdfPart(p.file, field), ...markOf(p.cache_control) } as ChatInputPart;
  }
}

type WireText = string | { text: string; cache_control?: WireCache }[] | null | undefined;

/**
 * Text content as the core takes it: one string, or its parts when a cache breakpoint marks one of them (or the
 * message, which marks its last part).
 */
function textContent(content: WireText, messageMark: WireCache): string | ChatInputPart[] {
  const parts = content === null || content === undefined ? [] : typeof content === 'string' ? [{ text: content }] : content;
  const marked = messageMark !== null && messageMark !== undefined;
  if (!marked && !parts.some((p) => 'cache_control' in p && p.cache_control)) return parts.map((p) => p.text).join('\n');
  return parts.map((p, j) => ({
    type: 'text' as const,
    text: p.text,
    ...markOf(('cache_control' in p ? p.cache_control : undefined) ?? (j === parts.length - 1 ? messageMark : undefined)),
  }));
}

/** A message-level breakpoint on parts: it marks the last one. */
function markLast(parts: ChatInputPart[], mark: WireCache): ChatInputPart[] {
  if (!mark || parts.length === 0) return parts;
  return [...parts.slice(0, -1), { ...parts[parts.length - 1], ...markOf(mark) } as ChatInputPart];
}

/**
 * Chat-completions messages to the core's: `developer` is `system`; images stay references until the core fetches
 * them; an assistant turn's replayed reasoning goes with it (`provider`: the vendor of the requested model, for
 * reasoning that names none).
 */
export function toChatMessages(
  messages: readonly WireMessage[],
  provider?: ProviderName,
  envelope?: ReasoningEnvelope,
): ChatInputMessage[] {
  return messages.map((m, i): ChatInputMessage => {
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: textContent(m.content, m.cache_control) };
      case 'tool':
        return { role: 'tool', content: textContent(m.content, m.cache_control), toolCallId: m.tool_call_id };
      case 'assistant': {
        const toolCalls = (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
        const reasoning = envelope ? replayedReasoning(m, provider, envelope) : [];
        return {
          role: 'assistant',
          content: textContent(m.content, m.cache_control),
          ...(reasoning.length > 0 ? { reasoning } : {}),
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
        };
      }
      case 'user': {
        if (typeof m.content === 'string') return { role: 'user', content: textContent(m.content, m.cache_control) };
        return {
          role: 'user',
          content: markLast(
            m.content.map((p, j) => userPart(p, `messages.${i}.content.${j}`)),
            m.cache_control,
          ),
        };
      }
    }
  });
}

function responseFormat(format: ChatCompletionBody['response_format']): ChatResponseFormat | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return format;
  const { name, description, schema, strict } = format.json_schema;
  return {
    type: 'json_schema',
    name,
    schema: schema ?? { type: 'object' },
    ...(description !== undefined ? { description } : {}),
    ...(strict !== undefined && strict !== null ? { strict } : {}),
  };
}

function options(body: ChatCompletionBody): ChatOptions {
  const orUndefined = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);
  const choice = body.tool_choice;
  return {
    tools: body.tools?.map((t) => ({
      name: t.function.name,
      ...(t.function.description !== undefined ? { description: t.function.description } : {}),
      ...(t.function.parameters !== undefined ? { parameters: t.function.parameters } : {}),
      ...(typeof t.function.strict === 'boolean' ? { strict: t.function.strict } : {}),
      ...markOf(t.cache_control),
    })),
    toolChoice: choice === null || choice === undefined ? undefined : typeof choice === 'string' ? choice : { name: choice.function.name },
    parallelToolCalls: orUndefined(body.parallel_tool_calls),
    responseFormat: responseFormat(body.response_format),
    stop: body.stop === null || body.stop === undefined ? undefined : typeof body.stop === 'string' ? [body.stop] : body.stop,
    topP: orUndefined(body.top_p),
    seed: orUndefined(body.seed),
    presencePenalty: orUndefined(body.presence_penalty),
    frequencyPenalty: orUndefined(body.frequency_penalty),
    user: orUndefined(body.user),
    reasoningEffort: orUndefined(body.reasoning_effort),
    metadata: orUndefined(body.metadata),
    serviceTier: orUndefined(body.service_tier),
    store: orUndefined(body.store),
    promptCacheKey: orUndefined(body.prompt_cache_key),
    safetyIdentifier: orUndefined(body.safety_identifier),
    choices: orUndefined(body.n),
    logprobs: body.logprobs ? { top: body.top_logprobs ?? 0 } : undefined,
    verbosity: orUndefined(body.verbosity),
  };
}

/**
 * Parameters this server does not know are refused by name rather than ignored. `null` and `false` mean
 * "not set" in every client we know of, so they pass.
 */
export function refuseUnknownParameters(raw: unknown): void {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return;
  for (const [key, value] of Object.entries(raw)) {
    if (!KNOWN_PARAMETERS.has(key) && value !== null && value !== false) {
      throw new ParamError(key, `${key} is not supported by this server`);
    }
  }
}

/** The chat-completions body as the core's chat input. @throws ParamError for audio output, top_logprobs without logprobs */
export function toChatInput(body: ChatCompletionBody, envelope?: ReasoningEnvelope): ChatInput {
  if (body.top_logprobs !== undefined && body.top_logprobs !== null && !body.logprobs) {
    throw new ParamError('top_logprobs', 'top_logprobs requires logprobs: true');
  }
  if (body.modalities?.includes('audio'))
    throw new ParamError('modalities', 'modalities: audio output is not supported, this server answers in text');
  return {
    model: body.model,
    ...fallbacksOf(body.model, body.models),
    messages: toChatMessages(body.messages, catalogEntry(body.model)?.provider, envelope),
    maxTokens: body.max_completion_tokens ?? body.max_tokens,
    temperature: body.temperature,
    ...options(body),
  };
}
