import crypto from 'node:crypto';
import type { ReasoningEnvelope } from '../../../core/generations/chat/reasoning-envelope';
import type { ChatOutcome, ChatStream } from '../../../core/generations/chat/types';
import type { ChatHostedCall, ChatUsage, FinishReason } from '../../../core/providers/types';
import { anthropicErrorBody, describeError } from '../../middleware/errors';
import type { SseChannel } from '../../sse';
import { serviceObject } from '../chat-run';
import { BlockEvent, blocksOfResult, OutputBlock, pipeBlocks } from '../output-blocks';
import { readable, signatureOf, thinkingBlock } from './thinking';

// The core's answer in the Messages wire format: the message object, and the documented event sequence
// message_start, content_block_start, ping, content_block_delta…, content_block_stop, message_delta, message_stop.

const STOP_REASONS: Record<FinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

export const messageId = () => `msg_${crypto.randomBytes(12).toString('base64url')}`;

function parseInput(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function contentBlock(block: OutputBlock, envelope: ReasoningEnvelope): Record<string, unknown> {
  switch (block.kind) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool':
      return { type: 'tool_use', id: block.id, name: block.name, input: parseInput(block.arguments) };
    case 'reasoning':
      return block.reasoning ? thinkingBlock(block.reasoning, envelope) : { type: 'thinking', thinking: block.text, signature: '' };
    case 'hosted':
      return serverToolUse(block.call);
  }
}

/** A hosted tool's run as Anthropic shows a server tool's call (its results stay with the vendor). */
function serverToolUse(call: ChatHostedCall): Record<string, unknown> {
  const query = call.action.query;
  return { type: 'server_tool_use', id: call.id, name: call.type, input: typeof query === 'string' ? { query } : {} };
}

/** Anthropic's usage fields: `input_tokens` is the prompt that was neither read from nor written to the cache. */
function usageOf(usage: ChatUsage): Record<string, number> {
  const read = usage.cachedTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.promptTokens - read - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
    output_tokens: usage.completionTokens,
  };
}

/** A whole answer as a Messages `message`. */
export function messageBody(out: ChatOutcome, envelope: ReasoningEnvelope): Record<string, unknown> {
  return {
    id: messageId(),
    type: 'message',
    role: 'assistant',
    model: out.model.slug,
    content: blocksOfResult(out.result).map((b) => contentBlock(b, envelope)),
    stop_reason: STOP_REASONS[out.result.finishReason],
    stop_sequence: null,
    usage: usageOf(out.result.usage),
    service: serviceObject(out),
  };
}

/** Writes the stream as Messages events; a vendor failure after the start is an `error` event, as the API sends it. */
export async function writeMessageStream(stream: ChatStream, sse: SseChannel, envelope: ReasoningEnvelope): Promise<void> {
  sse.event('message_start', {
    type: 'message_start',
    message: {
      id: messageId(),
      type: 'message',
      role: 'assistant',
      model: stream.model.slug,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usageOf({ promptTokens: stream.promptTokens, completionTokens: 0 }),
    },
  });
  let pinged = false;
  const delta = (index: number, d: Record<string, unknown>) =>
    sse.event('content_block_delta', { type: 'content_block_delta', index, delta: d });
  // Reasoning that streamed its text is a thinking block whose signature comes last (signature_delta); reasoning that
  // arrives whole is its block at once: thinking (its text in one delta) or redacted_thinking.
  const start = (index: number, block: OutputBlock): boolean => {
    if (block.kind === 'text')
      return sse.event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    if (block.kind === 'tool') {
      const content_block = { type: 'tool_use', id: block.id, name: block.name, input: {} };
      return sse.event('content_block_start', { type: 'content_block_start', index, content_block });
    }
    if (block.kind === 'hosted') {
      const { input, ...content_block } = serverToolUse(block.call);
      sse.event('content_block_start', { type: 'content_block_start', index, content_block: { ...content_block, input: {} } });
      return delta(index, { type: 'input_json_delta', partial_json: JSON.stringify(input) });
    }
    if (block.reasoning && !readable(block.reasoning)) {
      return sse.event('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: thinkingBlock(block.reasoning, envelope),
      });
    }
    const opened = sse.event('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    return block.text !== '' ? delta(index, { type: 'thinking_delta', thinking: block.text }) : opened;
  };
  const write = (ev: BlockEvent): boolean => {
    if (ev.type === 'start') {
      const opened = start(ev.index, ev.block);
      if (!pinged) sse.event('ping', { type: 'ping' });
      pinged = true;
      return opened;
    }
    if (ev.type === 'delta') {
      if (ev.kind === 'reasoning') return delta(ev.index, { type: 'thinking_delta', thinking: ev.text });
      return delta(
        ev.index,
        ev.kind === 'text' ? { type: 'text_delta', text: ev.text } : { type: 'input_json_delta', partial_json: ev.text },
      );
    }
    const r = ev.block.kind === 'reasoning' ? ev.block.reasoning : undefined;
    if (r && readable(r)) delta(ev.index, { type: 'signature_delta', signature: signatureOf(r, envelope) });
    return sse.event('content_block_stop', { type: 'content_block_stop', index: ev.index });
  };
  const piped = await pipeBlocks(stream, write);
  if (piped.failure !== undefined) {
    sse.event('error', anthropicErrorBody(describeError(piped.failure)));
  } else {
    const usage = piped.billed.usage ?? { promptTokens: stream.promptTokens, completionTokens: 0 };
    sse.event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: STOP_REASONS[piped.assembler.finishReason ?? 'stop'], stop_sequence: null },
      usage: usageOf(usage),
      service: serviceObject(piped.billed),
    });
    sse.event('message_stop', { type: 'message_stop' });
  }
  sse.close();
}
