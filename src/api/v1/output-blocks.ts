import crypto from 'node:crypto';
import type { ChatStream } from '../../core/generations/chat/types';
import type {
  ChatHostedCall,
  ChatReasoning,
  ChatResult,
  ChatStreamEvent,
  ChatToolCall,
  ChatUsage,
  FinishReason,
} from '../../core/providers/types';

// The answer as a list of output blocks (reasoning, text, or one function call), the shape both the Responses and the
// Messages wire formats are built on. A stream's flat deltas become block starts, deltas and stops here, once,
// so each surface only names the events.

export type OutputBlock =
  | { kind: 'text'; text: string }
  /** A call of the client's tool: JSON arguments, or a custom tool's free-form input; with its tool's namespace. */
  | { kind: 'tool'; id: string; name: string; arguments: string; custom?: boolean; namespace?: string }
  /** A tool the vendor ran itself (a web search), whole once it is done. */
  | { kind: 'hosted'; call: ChatHostedCall }
  /** Reasoning: its text as it streamed, and the whole of it (signature, opaque state) once it is complete. */
  | { kind: 'reasoning'; text: string; reasoning?: ChatReasoning };

/** The readable text of a piece of reasoning (none for redacted thinking or a bare signature). */
export const reasoningText = (r: ChatReasoning): string => (r.type === 'text' ? r.text : r.type === 'encrypted' ? (r.text ?? '') : '');

export type BlockEvent =
  | { type: 'start'; index: number; block: OutputBlock }
  | { type: 'delta'; index: number; kind: OutputBlock['kind']; text: string }
  | { type: 'stop'; index: number; block: OutputBlock };

/** A vendor that streams a call without an id still gets one the client can answer. */
const callId = () => `call_${crypto.randomBytes(12).toString('base64url')}`;

const toolBlock = (call: Pick<ChatToolCall, 'id' | 'name' | 'arguments' | 'kind' | 'namespace'>): OutputBlock => ({
  kind: 'tool',
  id: call.id,
  name: call.name,
  arguments: call.arguments,
  ...(call.kind === 'custom' ? { custom: true } : {}),
  ...(call.namespace !== undefined ? { namespace: call.namespace } : {}),
});

/** The blocks of a whole answer: its reasoning, the hosted tools' runs, its text (when there is any), then each tool call. */
export function blocksOfResult(result: ChatResult): OutputBlock[] {
  const blocks: OutputBlock[] = (result.reasoning ?? []).map((r) => ({ kind: 'reasoning', text: reasoningText(r), reasoning: r }));
  for (const call of result.hostedCalls ?? []) blocks.push({ kind: 'hosted', call });
  if (result.text !== '') blocks.push({ kind: 'text', text: result.text });
  for (const call of result.toolCalls ?? []) blocks.push(toolBlock(call));
  return blocks;
}

/** Turns the core's stream events into block events; `blocks` holds every block seen, finished or open. */
export class BlockAssembler {
  readonly blocks: OutputBlock[] = [];
  private open: { index: number; toolIndex?: number; reasoning?: boolean } | undefined;
  finishReason: FinishReason | undefined;
  usage: ChatUsage | undefined;

  accept(ev: ChatStreamEvent): BlockEvent[] {
    if (ev.type === 'finish') {
      this.finishReason = ev.finishReason;
      return [];
    }
    if (ev.type === 'usage') {
      this.usage = ev.usage;
      return [];
    }
    // These surfaces ask for one answer and no log probabilities.
    if (ev.type === 'logprobs' || ('choice' in ev && (ev.choice ?? 0) > 0)) return [];
    const out: BlockEvent[] = [];
    if (ev.type === 'hosted_call') {
      out.push(...this.stop(), this.start({ kind: 'hosted', call: ev.call }), ...this.stop());
      return out;
    }
    if (ev.type === 'reasoning_delta') {
      if (ev.text === '') return out;
      if (!this.open?.reasoning) out.push(...this.stop(), this.start({ kind: 'reasoning', text: '' }));
      (this.blocks[this.open!.index] as { text: string }).text += ev.text;
      out.push({ type: 'delta', index: this.open!.index, kind: 'reasoning', text: ev.text });
      return out;
    }
    if (ev.type === 'reasoning') {
      // The block whose text streamed is complete; reasoning that streamed no text is a block of its own.
      if (!this.open?.reasoning)
        out.push(...this.stop(), this.start({ kind: 'reasoning', text: reasoningText(ev.reasoning), reasoning: ev.reasoning }));
      (this.blocks[this.open!.index] as { reasoning?: ChatReasoning }).reasoning = ev.reasoning;
      out.push(...this.stop());
      return out;
    }
    if (ev.type === 'delta') {
      if (ev.text === '') return out;
      if (!this.open || this.open.toolIndex !== undefined || this.open.reasoning)
        out.push(...this.stop(), this.start({ kind: 'text', text: '' }));
      const block = this.blocks[this.open!.index] as { text: string };
      block.text += ev.text;
      out.push({ type: 'delta', index: this.open!.index, kind: 'text', text: ev.text });
      return out;
    }
    if (this.open?.toolIndex !== ev.index) {
      const call = { id: ev.id ?? callId(), name: ev.name ?? '', arguments: '', kind: ev.kind, namespace: ev.namespace };
      out.push(...this.stop(), this.start(toolBlock(call), ev.index));
    }
    const block = this.blocks[this.open!.index] as { arguments: string };
    if (ev.arguments !== '') {
      block.arguments += ev.arguments;
      out.push({ type: 'delta', index: this.open!.index, kind: 'tool', text: ev.arguments });
    }
    return out;
  }

  /** Closes the open block, if any. */
  stop(): BlockEvent[] {
    if (!this.open) return [];
    const index = this.open.index;
    this.open = undefined;
    return [{ type: 'stop', index, block: { ...this.blocks[index] } }];
  }

  private start(block: OutputBlock, toolIndex?: number): BlockEvent {
    this.blocks.push(block);
    this.open = { index: this.blocks.length - 1, toolIndex, reasoning: block.kind === 'reasoning' };
    return { type: 'start', index: this.open.index, block: { ...block } };
  }
}

export interface PipedStream {
  assembler: BlockAssembler;
  /** The vendor failed mid-answer (already billed as failed). */
  failure?: unknown;
  billed: Awaited<ChatStream['billed']>;
}

/**
 * Feeds the core's stream through a block assembler to `write` (false: the client is gone, stop reading, which
 * aborts the upstream call), closes the last block and waits for the settlement.
 */
export async function pipeBlocks(stream: ChatStream, write: (ev: BlockEvent) => boolean): Promise<PipedStream> {
  const assembler = new BlockAssembler();
  let failure: unknown;
  try {
    outer: for await (const ev of stream.events) {
      for (const out of assembler.accept(ev)) if (!write(out)) break outer;
    }
  } catch (err) {
    failure = err;
  }
  if (failure === undefined) for (const out of assembler.stop()) write(out);
  const billed = await stream.billed;
  return { assembler, billed, ...(failure !== undefined ? { failure } : {}) };
}
