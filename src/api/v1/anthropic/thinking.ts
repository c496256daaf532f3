import type { ReasoningEnvelope } from '../../../core/generations/chat/reasoning-envelope';
import type { ChatReasoning } from '../../../core/providers/types';
import { reasoningText } from '../output-blocks';

// Reasoning as Messages content blocks, both ways. Claude's own thinking and redacted_thinking blocks pass as they
// came, signatures and all. Other vendors' reasoning travels in the same blocks: readable reasoning as a thinking block
// whose signature is the service's sealed envelope of it, opaque state (a Gemini thought signature, OpenAI's encrypted
// reasoning) as a redacted_thinking block whose data is that envelope. A client that replays its blocks unchanged (as
// Claude Code and the SDK do) gives each vendor back exactly what it produced.

export type ThinkingBlock = { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string };

const claudeSigned = (r: ChatReasoning): r is Extract<ChatReasoning, { type: 'text' }> & { signature: string } =>
  r.provider === 'anthropic' && r.type === 'text' && r.signature !== undefined;

/** Whether a piece of reasoning is shown as a thinking block (readable) rather than redacted_thinking (opaque). */
export const readable = (r: ChatReasoning): boolean => r.type === 'text' || (r.type === 'encrypted' && (r.text ?? '') !== '');

/** The signature a thinking block carries for this reasoning: Claude's own, or the sealed reasoning. */
export function signatureOf(r: ChatReasoning, envelope: ReasoningEnvelope): string {
  return claudeSigned(r) ? r.signature : envelope.seal([r]);
}

/** One piece of reasoning as the block a Messages answer carries. */
export function thinkingBlock(r: ChatReasoning, envelope: ReasoningEnvelope): ThinkingBlock {
  if (r.provider === 'anthropic' && r.type === 'redacted') return { type: 'redacted_thinking', data: r.data };
  if (readable(r)) return { type: 'thinking', thinking: reasoningText(r), signature: signatureOf(r, envelope) };
  return { type: 'redacted_thinking', data: envelope.seal([r]) };
}

/** A replayed block as the core's reasoning: what the service sealed, or else Claude's own block. */
export function reasoningOfBlock(
  block: ThinkingBlock | { type: 'thinking'; thinking: string; signature?: string },
  envelope: ReasoningEnvelope,
): ChatReasoning[] {
  if (block.type === 'redacted_thinking')
    return envelope.open(block.data) ?? [{ type: 'redacted', provider: 'anthropic', data: block.data }];
  const sealed = block.signature !== undefined ? envelope.open(block.signature) : undefined;
  if (sealed) return sealed;
  return [
    { type: 'text', provider: 'anthropic', text: block.thinking, ...(block.signature !== undefined ? { signature: block.signature } : {}) },
  ];
}
