import { z } from 'zod';
import { discardBody, hasBody, readSseResponse } from '../http';
import { bearerPost, bodyReadFailure, inBodyError, readJsonBody } from '../openai-compatible/transport';
import type {
  ChatContentPart,
  ChatHostedCall,
  ChatMessage,
  ChatReasoning,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
  ChatTool,
  ChatToolCall,
  ChatUsage,
  FinishReason,
  ProviderConnection,
} from '../types';
import { ProviderError } from '../types';
import { isOpenAiReasoningModel, nearestOpenAiEffort } from './chat';

// OpenAI's Responses API as a vendor client: for models that take tools only there, custom and namespace tools,
// the hosted web search, and conversations that carry OpenAI's encrypted reasoning. Nothing is stored at OpenAI
// (`store: false`); the reasoning comes back as encrypted content, so a later turn restores it.

type Json = Record<string, unknown>;

const dataUri = (mime: string, data: Buffer) => `data:${mime};base64,${data.toString('base64')}`;

function plainText(content: string | ChatContentPart[]): string {
  return typeof content === 'string' ? content : content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

function userContent(content: string | ChatContentPart[]): string | Json[] {
  if (typeof content === 'string') return content;
  return content.flatMap((p): Json[] => {
    switch (p.type) {
      case 'text':
        return [{ type: 'input_text', text: p.text }];
      case 'image':
        return [{ type: 'input_image', image_url: dataUri(p.mime, p.data), detail: 'auto' }];
      case 'file':
        return [{ type: 'input_file', filename: p.filename ?? 'document.pdf', file_data: dataUri(p.mime, p.data) }];
      default:
        return [];
    }
  });
}

/** OpenAI's own reasoning items, replayed with their encrypted content (other vendors' reasoning never reaches here). */
function reasoningItems(reasoning: readonly ChatReasoning[] | undefined): Json[] {
  return (reasoning ?? []).flatMap((r) =>
    r.provider === 'openai' && r.type === 'encrypted'
      ? [
          {
            type: 'reasoning',
            ...(r.id ? { id: r.id } : {}),
            summary: r.text ? [{ type: 'summary_text', text: r.text }] : [],
            encrypted_content: r.data,
          },
        ]
      : [],
  );
}

function callItem(call: ChatToolCall): Json {
  const namespace = call.namespace !== undefined ? { namespace: call.namespace } : {};
  return call.kind === 'custom'
    ? { type: 'custom_tool_call', call_id: call.id, name: call.name, ...namespace, input: call.arguments }
    : { type: 'function_call', call_id: call.id, name: call.name, ...namespace, arguments: call.arguments };
}

/** The conversation as input items; system messages are developer messages where they stand. */
export function inputItems(messages: readonly ChatMessage[]): Json[] {
  const custom = new Set<string>();
  const out: Json[] = [];
  for (const m of messages) {
    if (m.role === 'system') out.push({ role: 'developer', content: plainText(m.content) });
    else if (m.role === 'user') out.push({ role: 'user', content: userContent(m.content) });
    else if (m.role === 'assistant') {
      out.push(...reasoningItems(m.reasoning));
      const text = plainText(m.content);
      if (text !== '') out.push({ role: 'assistant', content: text });
      for (const call of m.toolCalls ?? []) {
        if (call.kind === 'custom') custom.add(call.id);
        out.push(callItem(call));
      }
    } else {
      const type = custom.has(m.toolCallId ?? '') ? 'custom_tool_call_output' : 'function_call_output';
      out.push({ type, call_id: m.toolCallId ?? '', output: plainText(m.content) });
    }
  }
  return out;
}

function toolOf(t: ChatTool): Json {
  if (t.kind === 'custom') {
    return {
      type: 'custom',
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      ...(t.format ? { format: t.format } : {}),
    };
  }
  return {
    type: 'function',
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    parameters: t.parameters ?? { type: 'object', properties: {} },
    strict: t.strict ?? false,
  };
}

/** Tools in Responses shapes: namespace members grouped under their namespace, in the order first offered. */
export function toolList(req: ChatRequest): Json[] {
  const out: Json[] = [];
  const namespaces = new Map<string, Json[]>();
  for (const t of req.tools ?? []) {
    if (!t.namespace) {
      out.push(toolOf(t));
      continue;
    }
    let members = namespaces.get(t.namespace.name);
    if (!members) {
      members = [];
      namespaces.set(t.namespace.name, members);
      out.push({ type: 'namespace', name: t.namespace.name, description: t.namespace.description ?? '', tools: members });
    }
    members.push(toolOf(t));
  }
  for (const h of req.hostedTools ?? []) out.push({ ...h.settings, type: h.type });
  return out;
}

/** The documented POST /responses body for one of our chat requests. */
export function buildResponsesBody(req: ChatRequest, stream: boolean, maxOutput: number | undefined): Json {
  const model = req.upstreamModel;
  const reasons = isOpenAiReasoningModel(model);
  const body: Json = {
    model,
    input: inputItems(req.messages),
    max_output_tokens: maxOutput !== undefined ? Math.min(req.maxTokens, maxOutput) : req.maxTokens,
    store: false,
    ...(reasons ? { include: ['reasoning.encrypted_content'] } : {}),
  };
  const tools = toolList(req);
  if (tools.length > 0) body.tools = tools;
  const choice = req.toolChoice;
  if (choice !== undefined && tools.length > 0)
    body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
  if (req.parallelToolCalls !== undefined) body.parallel_tool_calls = req.parallelToolCalls;
  const text: Json = {};
  const format = req.responseFormat;
  if (format?.type === 'json_object') text.format = { type: 'json_object' };
  else if (format?.type === 'json_schema') text.format = format;
  if (req.verbosity !== undefined) text.verbosity = req.verbosity;
  if (Object.keys(text).length > 0) body.text = text;
  if (req.reasoningEffort !== undefined) body.reasoning = { effort: nearestOpenAiEffort(req.reasoningEffort, model) };
  if (!reasons && req.temperature !== undefined) body.temperature = req.temperature;
  if (!reasons && req.topP !== undefined) body.top_p = req.topP;
  if (req.user !== undefined) body.user = req.user;
  if (req.metadata !== undefined) body.metadata = req.metadata;
  if (req.serviceTier !== undefined) body.service_tier = req.serviceTier;
  if (req.promptCacheKey !== undefined) body.prompt_cache_key = req.promptCacheKey;
  if (req.safetyIdentifier !== undefined) body.safety_identifier = req.safetyIdentifier;
  if (stream) body.stream = true;
  return body;
}

// ---------- answers ----------

const usageSchema = z.object({
  input_tokens: z.number().nullish(),
  input_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
  output_tokens: z.number().nullish(),
  output_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
});

const itemSchema = z
  .object({
    type: z.string(),
    id: z.string().nullish(),
    status: z.string().nullish(),
    content: z.array(z.object({ type: z.string(), text: z.string().nullish(), refusal: z.string().nullish() })).nullish(),
    call_id: z.string().nullish(),
    name: z.string().nullish(),
    namespace: z.string().nullish(),
    arguments: z.string().nullish(),
    input: z.string().nullish(),
    summary: z.array(z.object({ text: z.string().nullish() })).nullish(),
    encrypted_content: z.string().nullish(),
    action: z.record(z.string(), z.unknown()).nullish(),
  })
  .passthrough();
type WireItem = z.infer<typeof itemSchema>;

const responseSchema = z.object({
  status: z.string().nullish(),
  error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
  incomplete_details: z.object({ reason: z.string().nullish() }).nullish(),
  output: z.array(itemSchema).default([]),
  usage: usageSchema.nullish(),
});
type WireResponse = z.infer<typeof responseSchema>;

function usageOf(usage: z.infer<typeof usageSchema> | null | undefined, searches: number): ChatUsage {
  const out: ChatUsage = {
    promptTokens: usage?.input_tokens ?? 0,
    completionTokens: usage?.output_tokens ?? 0,
    cachedTokens: usage?.input_tokens_details?.cached_tokens ?? 0,
    reasoningTokens: usage?.output_tokens_details?.reasoning_tokens ?? 0,
  };
  return searches > 0 ? { ...out, toolUses: { web_search: searches } } : out;
}

function reasoningOf(item: WireItem): ChatReasoning | undefined {
  const text = (item.summary ?? []).flatMap((s) => (s.text ? [s.text] : [])).join('\n');
  if (item.encrypted_content) {
    return {
      type: 'encrypted',
      provider: 'openai',
      data: item.encrypted_content,
      ...(item.id ? { id: item.id } : {}),
      ...(text ? { text } : {}),
    };
  }
  return text ? { type: 'text', provider: 'openai', text } : undefined;
}

function callOf(item: WireItem): ChatToolCall {
  const namespace = item.namespace ? { namespace: item.namespace } : {};
  if (item.type === 'custom_tool_call') {
    return { id: item.call_id ?? item.id ?? '', name: item.name ?? '', arguments: item.input ?? '', kind: 'custom', ...namespace };
  }
  return { id: item.call_id ?? item.id ?? '', name: item.name ?? '', arguments: item.arguments ?? '', ...namespace };
}

function hostedOf(item: WireItem): ChatHostedCall {
  return { id: item.id ?? '', type: 'web_search', status: item.status === 'failed' ? 'failed' : 'completed', action: item.action ?? {} };
}

/** How the answer ended: cut by the limit or the filter, calling tools, or done. */
function finishOf(res: WireResponse, calls: number): FinishReason {
  const reason = res.incomplete_details?.reason;
  if (res.status === 'incomplete') return reason === 'content_filter' ? 'content_filter' : 'length';
  return calls > 0 ? 'tool_calls' : 'stop';
}

function failure(res: { error?: { code?: string | null; message?: string | null } | null }): ProviderError {
  return inBodyError('openai', { message: res.error?.message ?? 'openai failed to answer', code: res.error?.code ?? null });
}

/** A whole Responses answer as the core's result. */
export function resultOf(json: unknown): ChatResult {
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success) throw new ProviderError('upstream', 'openai answered with an unexpected response shape', 'openai');
  const res = parsed.data;
  if (res.status === 'failed') throw failure(res);
  const reasoning: ChatReasoning[] = [];
  const toolCalls: ChatToolCall[] = [];
  const hostedCalls: ChatHostedCall[] = [];
  let text = '';
  let refusal = '';
  for (const item of res.output) {
    if (item.type === 'reasoning') {
      const r = reasoningOf(item);
      if (r) reasoning.push(r);
    } else if (item.type === 'message') {
      for (const part of item.content ?? []) {
        if (part.type === 'output_text') text += part.text ?? '';
        else if (part.type === 'refusal') refusal += part.refusal ?? '';
      }
    } else if (item.type === 'function_call' || item.type === 'custom_tool_call') toolCalls.push(callOf(item));
    else if (item.type === 'web_search_call') hostedCalls.push(hostedOf(item));
  }
  if (text === '' && toolCalls.length === 0 && refusal !== '') {
    throw new ProviderError('content_policy', `openai refused to answer: ${refusal}`, 'openai');
  }
  return {
    text,
    usage: usageOf(res.usage, hostedCalls.length),
    finishReason: finishOf(res, toolCalls.length),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(reasoning.length > 0 ? { reasoning } : {}),
    ...(hostedCalls.length > 0 ? { hostedCalls } : {}),
  };
}

export async function responsesChat(req: ChatRequest, conn: ProviderConnection, maxOutput: number | undefined, signal?: AbortSignal) {
  const res = await bearerPost(conn, { provider: 'openai', path: '/responses', body: buildResponsesBody(req, false, maxOutput), signal });
  return resultOf(await readJsonBody('openai', res, signal));
}

const eventSchema = z
  .object({
    type: z.string(),
    output_index: z.number().nullish(),
    delta: z.string().nullish(),
    item: itemSchema.nullish(),
    response: responseSchema.nullish(),
    message: z.string().nullish(),
    code: z.string().nullish(),
  })
  .passthrough();

/** The Responses event stream as the core's deltas: text, reasoning, calls (and their input), hosted runs. */
export async function* responsesChatStream(
  req: ChatRequest,
  conn: ProviderConnection,
  maxOutput: number | undefined,
  signal?: AbortSignal,
): AsyncGenerator<ChatStreamEvent> {
  const res = await bearerPost(conn, { provider: 'openai', path: '/responses', body: buildResponsesBody(req, true, maxOutput), signal });
  if (!hasBody(res)) throw new ProviderError('upstream', 'openai answered a stream request without a body', 'openai');
  /** Each call's index among the answer's calls, by its output index. */
  const calls = new Map<number, number>();
  let searches = 0;
  let end: WireResponse | undefined;
  try {
    for await (const event of readSseResponse(res)) {
      if (event.data === '[DONE]') break;
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        throw new ProviderError('upstream', 'openai sent a stream event that is not JSON', 'openai');
      }
      const parsed = eventSchema.safeParse(json);
      if (!parsed.success) throw new ProviderError('upstream', 'openai sent a malformed stream event', 'openai');
      const ev = parsed.data;
      const at = ev.output_index ?? 0;
      switch (ev.type) {
        case 'response.output_text.delta':
          if (ev.delta) yield { type: 'delta', text: ev.delta };
          break;
        case 'response.reasoning_summary_text.delta':
          if (ev.delta) yield { type: 'reasoning_delta', text: ev.delta };
          break;
        case 'response.function_call_arguments.delta':
        case 'response.custom_tool_call_input.delta': {
          const index = calls.get(at);
          if (index !== undefined && ev.delta) yield { type: 'tool_call', index, arguments: ev.delta };
          break;
        }
        case 'response.output_item.added':
          if (ev.item && (ev.item.type === 'function_call' || ev.item.type === 'custom_tool_call')) {
            const index = calls.size;
            calls.set(at, index);
            const call = callOf(ev.item);
            yield {
              type: 'tool_call',
              index,
              id: call.id,
              name: call.name,
              ...(call.kind ? { kind: call.kind } : {}),
              ...(call.namespace !== undefined ? { namespace: call.namespace } : {}),
              arguments: '',
            };
          }
          break;
        case 'response.output_item.done':
          if (ev.item?.type === 'reasoning') {
            const r = reasoningOf(ev.item);
            if (r) yield { type: 'reasoning', reasoning: r };
          } else if (ev.item?.type === 'web_search_call') {
            searches += 1;
            yield { type: 'hosted_call', call: hostedOf(ev.item) };
          }
          break;
        case 'response.completed':
        case 'response.incomplete':
          end = ev.response ?? { output: [] };
          break;
        case 'response.failed':
          throw failure(ev.response ?? {});
        case 'error':
          throw inBodyError('openai', { message: ev.message ?? 'openai reported an error', code: ev.code ?? null });
      }
      if (end) break;
    }
  } catch (err) {
    throw bodyReadFailure('openai', err, signal);
  } finally {
    await discardBody(res);
  }
  if (!end) throw new ProviderError('upstream', 'openai ended the stream before the answer was complete', 'openai');
  yield { type: 'usage', usage: usageOf(end.usage, searches) };
  yield { type: 'finish', finishReason: finishOf(end, calls.size) };
}
