import crypto from 'node:crypto';
import type { ChatOutcome, ChatStream } from '../../../core/generations/chat/types';
import type { ChatUsage, FinishReason } from '../../../core/providers/types';
import { anthropicErrorBody, describeError } from '../../middleware/errors';
import type { SseChannel } from '../../sse';
import { serviceObject } from '../chat-run';
import { BlockEvent, blocksOfResult, OutputBlock, pipeBlocks } from '../output-blocks';

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

function contentBlock(block: OutputBlock): Record<string, unknown> {
  return block.kind === 'text'
    ? { type: 'text', text: block.text }
    : { type: 'tool_use', id: block.id, name: block.name, input: parseInput(block.arguments) };
}

function usageOf(usage: ChatUsage): Record<string, number> {
  return {
    input_tokens: usage.promptTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: usage.completionTokens,
  };
}

/** A whole answer as a Messages `message`. */
export function messageBody(out: ChatOutcome): Record<string, unknown> {
  return {
    id: messageId(),
    type: 'message',
    role: 'assistant',
    model: out.model.slug,
    content: blocksOfResult(out.result).map(contentBlock),
    stop_reason: STOP_REASONS[out.result.finishReason],
    stop_sequence: null,
    usage: usageOf(out.result.usage),
    service: serviceObject(out),
  };
}

/** Writes the stream as Messages events; a vendor failure after the start is an `error` event, as the API sends it. */
export async function writeMessageStream(stream: ChatStream, sse: SseChannel): Promise<void> {
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
  const write = (ev: BlockEvent): boolean => {
    if (ev.type === 'start') {
      const opened = sse.event('content_block_start', {
        type: 'content_block_start',
        index: ev.index,
        content_block:
          ev.block.kind === 'text' ? { type: 'text', text: '' } : { type: 'tool_use', id: ev.block.id, name: ev.block.name, input: {} },
      });
      if (!pinged) sse.event('ping', { type: 'ping' });
      pinged = true;
      return opened;
    }
    if (ev.type === 'delta') {
      const delta = ev.kind === 'text' ? { type: 'text_delta', text: ev.text } : { type: 'input_json_delta', partial_json: ev.text };
      return sse.event('content_block_delta', { type: 'content_block_delta', index: ev.index, delta });
    }
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
