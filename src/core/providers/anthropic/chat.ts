import { readSse, upstreamFetch, upstreamJson } from '../http';
import { ChatCapability, ChatRequest, ChatResult, ChatStreamEvent, ProviderConnection, ProviderError } from '../types';
import { anthropicErrorKind, mapStopReason, refineAnthropicError, refusalError } from './errors';
import { anthropicSupports, JSON_ANSWER_TOOL, toAnthropicBody } from './request';
import { ANTHROPIC_VERSION, AnthropicMessage, AnthropicStreamEvent, anthropicMessage, anthropicStreamEvent } from './wire';

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
  return {
    text,
    finishReason,
    usage: { promptTokens: msg.usage.input_tokens ?? 0, completionTokens: msg.usage.output_tokens ?? 0 },
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
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
    usage: { promptTokens: msg.usage.input_tokens ?? 0, completionTokens: msg.usage.output_tokens ?? 0 },
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

  let promptTokens = 0;
  let completionTokens = 0;
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
        promptTokens = ev.message.usage.input_tokens ?? promptTokens;
        completionTokens = ev.message.usage.output_tokens ?? completionTokens;
      } else if (ev.type === 'content_block_start') {
        const block = ev.content_block;
        if (jsonTool && block.type === 'tool_use' && block.name === JSON_ANSWER_TOOL) jsonBlock = ev.index;
        else if (block.type === 'tool_use' && block.id && block.name) {
          toolIndex.set(ev.index, toolIndex.size);
          yield { type: 'tool_call', index: toolIndex.get(ev.index)!, id: block.id, name: block.name, arguments: '' };
        }
      } else if (ev.type === 'content_block_delta') {
        if (ev.delta.type === 'text_delta' && ev.delta.text && !jsonTool) {
          sawText = true;
          yield { type: 'delta', text: ev.delta.text };
        } else if (ev.delta.type === 'input_json_delta' && ev.delta.partial_json && ev.index === jsonBlock) {
          sawText = true;
          yield { type: 'delta', text: ev.delta.partial_json };
        } else if (ev.delta.type === 'input_json_delta' && ev.delta.partial_json && toolIndex.has(ev.index)) {
          yield { type: 'tool_call', index: toolIndex.get(ev.index)!, arguments: ev.delta.partial_json };
        }
      } else if (ev.type === 'message_delta') {
        stopReason = ev.delta.stop_reason ?? stopReason;
        // message_delta usage is cumulative; newer API versions repeat input_tokens here too.
        completionTokens = ev.usage?.output_tokens ?? completionTokens;
        promptTokens = ev.usage?.input_tokens ?? promptTokens;
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
  yield { type: 'usage', usage: { promptTokens, completionTokens } };
  yield { type: 'finish', finishReason: jsonBlock !== undefined && mapped === 'tool_calls' ? 'stop' : mapped };
}

export const anthropicChat: ChatCapability = {
  chat,
  chatStream,
  supports: (option, _model, traits) => anthropicSupports(option, traits),
};
