import { readSse, upstreamFetch, upstreamJson } from '../http';
import {
  ChatCapability,
  ChatReasoning,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
  ChatUsage,
  ProviderConnection,
  ProviderError,
} from '../types';
import { anthropicErrorKind, mapStopReason, refineAnthropicError, refusalError } from './errors';
import { anthropicSupports, JSON_ANSWER_TOOL, toAnthropicBody } from './request';
import { ANTHROPIC_VERSION, AnthropicMessage, AnthropicStreamEvent, AnthropicUsage, anthropicMessage, anthropicStreamEvent } from './wire';

/**
 * The Messages API's usage as the core counts it: the prompt includes what was read from and written to the cache
 * (Anthropic's `input_tokens` leaves them out). Anthropic reports no thinking-token count; the thinking it returned
 * (four characters a token) stands for it, never above the output.
 */
export function usageOf(u: AnthropicUsage, thinkingChars = 0): ChatUsage {
  const read = u.cache_read_input_tokens ?? 0;
  const written = u.cache_creation_input_tokens ?? 0;
  const output = u.output_tokens ?? 0;
  const reasoning = Math.min(output, Math.ceil(thinkingChars / 4));
  return {
    promptTokens: (u.input_tokens ?? 0) + read + written,
    completionTokens: output,
    ...(read > 0 ? { cachedTokens: read } : {}),
    ...(written > 0 ? { cacheWriteTokens: written } : {}),
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}

/** Claude's thinking and redacted thinking blocks, in order, as the core keeps reasoning. */
function reasoningOf(msg: AnthropicMessage): ChatReasoning[] {
  return msg.content.flatMap((b): ChatReasoning[] => {
    if (b.type === 'thinking') {
      return [{ type: 'text', provider: 'anthropic', text: b.thinking ?? '', ...(b.signature ? { signature: b.signature } : {}) }];
    }
    if (b.type === 'redacted_thinking' && b.data) return [{ type: 'redacted', provider: 'anthropic', data: b.data }];
    return [];
  });
}

const thinkingChars = (reasoning: readonly ChatReasoning[]) => reasoning.reduce((n, r) => n + (r.type === 'text' ? r.text.length : 0), 0);

function headers(conn: ProviderConnection): Record<string, string> {
  return { 'x-api-key': conn.apiKey, 'anthropic-version': ANTHROPIC_VERSION };
}

async function chat(req: ChatRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<ChatResult> {
  let raw: unknown;
  try {
    raw = await upstreamJson<unknown>('anthropic', conn, {
      path: '/messages',
      headers: headers(conn),
      body: toAnthropicBody(req, false),
      signal,
    });
  } catch (err) {
    throw refineAnthropicError(err);
  }
  const parsed = anthropicMessage.safeParse(raw);
  if (!parsed.success) throw new ProviderError('upstream', 'anthropic answered with an unexpected message shape', 'anthropic');
  const msg = parsed.data;
  if (req.responseFormat?.type === 'json_object') return jsonToolAnswer(msg);
  const text = msg.content.flatMap((b) => (b.type === 'text' && b.text ? [b.text] : [])).join('');
  const toolCalls = msg.content.flatMap((b) =>
    b.type === 'tool_use' && b.id && b.name ? [{ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) }] : [],
  );
  const finishReason = mapStopReason(msg.stop_reason);
  if (finishReason === 'content_filter' && text === '') throw refusalError();
  const reasoning = reasoningOf(msg);
  return {
    text,
    finishReason,
    usage: usageOf(msg.usage, thinkingChars(reasoning)),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(reasoning.length > 0 ? { reasoning } : {}),
  };
}

/** JSON output without a schema came as the input of the forced JSON tool: that input is the answer. */
function jsonToolAnswer(msg: AnthropicMessage): ChatResult {
  const call = msg.content.find((b) => b.type === 'tool_use' && b.name === JSON_ANSWER_TOOL);
  if (!call) throw new ProviderError('upstream', 'anthropic did not answer with the requested JSON', 'anthropic');
  const finishReason = mapStopReason(msg.stop_reason);
  return {
    text: JSON.stringify(call.input ?? {}),
    finishReason: finishReason === 'tool_calls' ? 'stop' : finishReason,
    usage: usageOf(msg.usage),
  };
}

const KNOWN_EVENTS = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
]);

/** Parses one SSE data payload; event types we do not know are skipped, as the docs ask. */
function parseEvent(data: string): AnthropicStreamEvent | undefined {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new ProviderError('upstream', 'anthropic sent a stream event that is not JSON', 'anthropic');
  }
  const type = (json as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !KNOWN_EVENTS.has(type)) return undefined;
  const parsed = anthropicStreamEvent.safeParse(json);
  if (!parsed.success) throw new ProviderError('upstream', `anthropic sent a malformed ${type} event`, 'anthropic');
  return parsed.data;
}

/** A broken connection or a timer firing while reading becomes a ProviderError; a caller's abort stays as is. */
function streamFailure(err: unknown, signal?: AbortSignal): unknown {
  if (err instanceof ProviderError || signal?.aborted) return err;
  const e = err as Error;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') {
    return new ProviderError('timeout', 'anthropic stream stalled past the timeout', 'anthropic');
  }
  return new ProviderError('upstream', `anthropic stream broke off: ${e?.message ?? String(err)}`, 'anthropic');
}

/** The usage fields a stream event actually carries (null or absent ones keep the earlier count). */
function definedFields(u: AnthropicUsage): AnthropicUsage {
  return Object.fromEntries(Object.entries(u).filter(([, v]) => v !== null && v !== undefined)) as AnthropicUsage;
}

async function* chatStream(req: ChatRequest, conn: ProviderConnection, signal?: AbortSignal): AsyncGenerator<ChatStreamEvent> {
  let res: Response;
  try {
    res = await upstreamFetch('anthropic', conn, {
      path: '/messages',
      headers: { ...headers(conn), accept: 'text/event-stream' },
      body: toAnthropicBody(req, true),
      signal,
    });
  } catch (err) {
    throw refineAnthropicError(err);
  }
  if (!res.body) throw new ProviderError('upstream', 'anthropic answered a stream request without a body', 'anthropic');

  let usage: AnthropicUsage = {};
  let thought = 0;
  // The thinking block being streamed: its text so far and its signature (which arrives last).
  let thinking: { index: number; text: string; signature?: string } | undefined;
  let stopReason: string | null | undefined;
  let sawText = false;
  let stopped = false;
  // Content block index -> index of the tool call it carries, in the order the calls began.
  const toolIndex = new Map<number, number>();
  // JSON output without a schema streams as the forced JSON tool's input: its fragments are the answer text.
  const jsonTool = req.responseFormat?.type === 'json_object';
  let jsonBlock: number | undefined;
  try {
    for await (const sse of readSse(res.body)) {
      const ev = parseEvent(sse.data);
      if (!ev) continue;
      if (ev.type === 'message_start') {
        usage = { ...usage, ...definedFields(ev.message.usage) };
      } else if (ev.type === 'content_block_start') {
        const block = ev.content_block;
        if (block.type === 'thinking') thinking = { index: ev.index, text: '', ...(block.signature ? { signature: block.signature } : {}) };
        else if (block.type === 'redacted_thinking' && block.data) {
          yield { type: 'reasoning', reasoning: { type: 'redacted', provider: 'anthropic', data: block.data } };
        } else if (jsonTool && block.type === 'tool_use' && block.name === JSON_ANSWER_TOOL) jsonBlock = ev.index;
        else if (block.type === 'tool_use' && block.id && block.name) {
          toolIndex.set(ev.index, toolIndex.size);
          yield { type: 'tool_call', index: toolIndex.get(ev.index)!, id: block.id, name: block.name, arguments: '' };
        }
      } else if (ev.type === 'content_block_delta') {
        if (ev.delta.type === 'thinking_delta' && thinking?.index === ev.index && ev.delta.thinking) {
          thinking.text += ev.delta.thinking;
          thought += ev.delta.thinking.length;
          yield { type: 'reasoning_delta', text: ev.delta.thinking };
        } else if (ev.delta.type === 'signature_delta' && thinking?.index === ev.index) {
          thinking.signature = (thinking.signature ?? '') + (ev.delta.signature ?? '');
        } else if (ev.delta.type === 'text_delta' && ev.delta.text && !jsonTool) {
          sawText = true;
          yield { type: 'delta', text: ev.delta.text };
        } else if (ev.delta.type === 'input_json_delta' && ev.delta.partial_json && ev.index === jsonBlock) {
          sawText = true;
          yield { type: 'delta', text: ev.delta.partial_json };
        } else if (ev.delta.type === 'input_json_delta' && ev.delta.partial_json && toolIndex.has(ev.index)) {
          yield { type: 'tool_call', index: toolIndex.get(ev.index)!, arguments: ev.delta.partial_json };
        }
      } else if (ev.type === 'content_block_stop' && thinking?.index === ev.index) {
        const { text, signature } = thinking;
        thinking = undefined;
        yield { type: 'reasoning', reasoning: { type: 'text', provider: 'anthropic', text, ...(signature ? { signature } : {}) } };
      } else if (ev.type === 'message_delta') {
        stopReason = ev.delta.stop_reason ?? stopReason;
        // message_delta usage is cumulative; newer API versions repeat the input and cache counts here too.
        usage = { ...usage, ...definedFields(ev.usage ?? {}) };
      } else if (ev.type === 'error') {
        throw new ProviderError(anthropicErrorKind(ev.error.type, ev.error.message), ev.error.message, 'anthropic');
      } else if (ev.type === 'message_stop') {
        stopped = true;
        break;
      }
    }
  } catch (err) {
    throw streamFailure(err, signal);
  } finally {
    await res.body.cancel().catch(() => undefined);
  }
  if (!stopped) throw new ProviderError('upstream', 'anthropic stream ended before message_stop', 'anthropic');
  const mapped = mapStopReason(stopReason);
  if (mapped === 'content_filter' && !sawText) throw refusalError();
  yield { type: 'usage', usage: usageOf(usage, thought) };
  yield { type: 'finish', finishReason: jsonBlock !== undefined && mapped === 'tool_calls' ? 'stop' : mapped };
}

export const anthropicChat: ChatCapability = {
  chat,
  chatStream,
  supports: (option, model, traits) => anthropicSupports(option, model, traits),
};
