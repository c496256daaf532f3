import { fallbacksOf } from '../fallback-models';
import { ParamError } from '../../../core/catalog/errors';
import type { ChatInput } from '../../../core/generations/chat/types';
import type { ChatInputMessage, ChatInputPart } from '../../../core/generations/chat/request';
import type { ReasoningEnvelope } from '../../../core/generations/chat/reasoning-envelope';
import type { ChatReasoning, ChatResponseFormat, ChatToolCall } from '../../../core/providers/types';
import { pdfPart } from '../messages';
import { toolChoiceOf, toolsOf } from './tools';
import { ENCRYPTED_CONTENT, reasoningOfItem } from './reasoning-items';
import { KNOWN_RESPONSES_PARAMETERS, ResponsesBody, ResponsesItem } from './schema';

type MessageItem = Extract<ResponsesItem, { type: 'message' }>;
type Part = MessageItem['content'][number];

/** Parameters this server does not know are refused by name; `null` and `false` mean "not set". */
export function refuseUnknownResponsesParameters(raw: unknown): void {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return;
  for (const [key, value] of Object.entries(raw)) {
    if (!KNOWN_RESPONSES_PARAMETERS.has(key) && value !== null && value !== false) {
      throw new ParamError(key, `${key} is not supported by this server`);
    }
  }
}

/** What needs state this service does not keep: conversations (the Conversations API) and stored prompt templates. */
function refuseStateful(body: ResponsesBody): void {
  if (body.conversation !== undefined && body.conversation !== null) {
    throw new ParamError('conversation', 'conversation is not supported: continue a stored response with previous_response_id');
  }
  if (body.prompt !== undefined && body.prompt !== null) {
    throw new ParamError('prompt', 'prompt is not supported: this server keeps no prompt templates');
  }
}

type TextPart = { type: 'input_text' | 'output_text'; text: string } | { type: 'refusal'; refusal: string } | { type: string };

const textOf = (parts: readonly TextPart[]) =>
  parts
    .flatMap((p) =>
      (p.type === 'input_text' || p.type === 'output_text') && 'text' in p
        ? [p.text]
        : p.type === 'refusal' && 'refusal' in p
          ? [p.refusal]
          : [],
    )
    .join('\n');

type FilePart = Extract<Part, { type: 'input_file' }>;

/** An inline document (`file_data`) as a PDF part; by id or URL it would need a file store this service has not. */
function filePart(p: FilePart, field: string): ChatInputPart {
  if (p.file_data === undefined) {
    const by = p.file_id ? 'file_id' : 'file_url';
    throw new ParamError(`${field}.${by}`, `${field}.${by}: files are read inline here; send the document as file_data (base64)`);
  }
  return pdfPart({ file_data: p.file_data, ...(p.filename !== undefined ? { filename: p.filename } : {}) }, field);
}

function userContent(parts: readonly Part[], field: string): string | ChatInputPart[] {
  if (parts.every((p) => p.type !== 'input_image' && p.type !== 'input_file')) return textOf(parts);
  return parts.map((p, j): ChatInputPart => {
    if (p.type === 'input_image') return { type: 'image_url', url: p.image_url, field: `${field}.${j}.image_url` };
    if (p.type === 'input_file') return filePart(p, `${field}.${j}`);
    return { type: 'text', text: textOf([p]) };
  });
}

/**
 * Input items in order as the core's messages: consecutive function_call items join the assistant turn before
 * them (the calls it made), each function_call_output is a tool message answering its call. A reasoning item's state
 * belongs to the assistant turn that follows it.
 */
function toMessages(items: readonly ResponsesItem[], envelope: ReasoningEnvelope): ChatInputMessage[] {
  const out: ChatInputMessage[] = [];
  let reasoning: ChatReasoning[] = [];
  /** The assistant turn an item joins: the last one, unless reasoning came since (a new turn starts with it). */
  const assistant = (): ChatInputMessage => {
    const last = out[out.length - 1];
    if (last?.role === 'assistant' && reasoning.length === 0) return last;
    const turn: ChatInputMessage = { role: 'assistant', content: '', ...(reasoning.length > 0 ? { reasoning } : {}) };
    reasoning = [];
    out.push(turn);
    return turn;
  };
  for (const [i, item] of items.entries()) {
    switch (item.type) {
      case 'message':
        if (item.role === 'user') out.push({ role: 'user', content: userContent(item.content, `input.${i}.content`) });
        else if (item.role === 'assistant') {
          out.push({ role: 'assistant', content: textOf(item.content), ...(reasoning.length > 0 ? { reasoning } : {}) });
          reasoning = [];
        } else out.push({ role: 'system', content: textOf(item.content) });
        break;
      case 'function_call':
      case 'custom_tool_call': {
        const turn = assistant();
        const call: ChatToolCall =
          item.type === 'function_call'
            ? { id: item.call_id, name: item.name, arguments: item.arguments }
            : { id: item.call_id, name: item.name, arguments: item.input, kind: 'custom' };
        if (item.namespace) call.namespace = item.namespace;
        turn.toolCalls = [...(turn.toolCalls ?? []), call];
        break;
      }
      case 'custom_tool_call_output':
        out.push({ role: 'tool', toolCallId: item.call_id, content: textOf(item.output) });
        break;
      case 'web_search_call':
      case 'additional_tools':
      case 'item_reference':
        // A search's results stay with its vendor; tools are offered apart (toolsOf); references are resolved before.
        break;
      case 'function_call_output':
        out.push({ role: 'tool', toolCallId: item.call_id, content: textOf(item.output) });
        break;
      case 'reasoning':
        reasoning = [...reasoning, ...reasoningOfItem(item, envelope)];
        break;
    }
  }
  return out;
}

function responseFormat(format: NonNullable<ResponsesBody['text']>['format']): ChatResponseFormat | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return format;
  return {
    type: 'json_schema',
    name: format.name,
    schema: format.schema,
    ...(format.description !== undefined ? { description: format.description } : {}),
    ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
  };
}

/** A Responses request as the core's chat input. @throws ParamError for what needs state this server does not keep */
export function toChatInput(body: ResponsesBody, envelope: ReasoningEnvelope): { input: ChatInput; ignored: string[] } {
  refuseStateful(body);
  const items: ResponsesItem[] =
    typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: body.input }] }] : body.input;
  const system: ChatInputMessage[] = body.instructions ? [{ role: 'system', content: body.instructions }] : [];
  const offered = toolsOf([body.tools ?? [], ...items.flatMap((i) => (i.type === 'additional_tools' ? [i.tools] : []))]);
  const { toolChoice, tools } = toolChoiceOf(body.tool_choice, offered.tools);
  const orUndefined = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);
  const input: ChatInput = {
    model: body.model,
    ...fallbacksOf(body.model, body.models),
    messages: [...system, ...toMessages(items, envelope)],
    maxTokens: body.max_output_tokens,
    temperature: body.temperature,
    ...(tools.length > 0 ? { tools } : {}),
    ...(offered.hostedTools.length > 0 ? { hostedTools: offered.hostedTools } : {}),
    toolChoice,
    parallelToolCalls: orUndefined(body.parallel_tool_calls),
    responseFormat: responseFormat(body.text?.format),
    topP: orUndefined(body.top_p),
    verbosity: orUndefined(body.text?.verbosity),
    user: orUndefined(body.safety_identifier) ?? orUndefined(body.user),
    ...(body.reasoning?.effort ? { reasoningEffort: body.reasoning.effort } : {}),
    ...(body.prompt_cache_key ? { promptCacheKey: body.prompt_cache_key } : {}),
    ...(body.include?.includes(ENCRYPTED_CONTENT) ? { keepReasoning: true } : {}),
    ...(body.metadata ? { metadata: body.metadata } : {}),
    ...(body.service_tier ? { serviceTier: body.service_tier } : {}),
  };
  return { input, ignored: [...offered.ignored, ...ignoredLabels(body)] };
}

/** Request fields this service takes and has no use for (Codex CLI's `client_metadata`, for one). */
function ignoredLabels(body: ResponsesBody): string[] {
  const set = (v: unknown) => v !== undefined && v !== null;
  return (['client_metadata', 'top_logprobs', 'max_tool_calls', 'context_management'] as const).filter((k) => set(body[k]));
}
