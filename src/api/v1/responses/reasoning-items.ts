import crypto from 'node:crypto';
import type { ReasoningEnvelope } from '../../../core/generations/chat/reasoning-envelope';
import type { ChatReasoning } from '../../../core/providers/types';
import { reasoningText } from '../output-blocks';

// Reasoning as Responses `reasoning` items, both ways. With `include: ["reasoning.encrypted_content"]` an item carries
// the state that restores the vendor's reasoning when a later request replays it: OpenAI's own encrypted content as
// OpenAI gave it, any other vendor's reasoning (Claude's signed thinking, a Gemini thought signature, DeepSeek's
// reasoning) sealed in the service's envelope. The reasoning text is the item's summary when `reasoning.summary` asks.

type Json = Record<string, unknown>;

export const ENCRYPTED_CONTENT = 'reasoning.encrypted_content';

/** What the request asked to see of the reasoning. */
export interface ReasoningShown {
  summary: boolean;
  encrypted: boolean;
  envelope: ReasoningEnvelope;
}

export const summaryPart = (text: string): Json => ({ type: 'summary_text', text });

/** OpenAI's own reasoning item keeps its id; others get one. */
export function reasoningItemId(r: ChatReasoning | undefined): string {
  if (r?.provider === 'openai' && r.type === 'encrypted' && r.id) return r.id;
  return `rs_${crypto.randomBytes(12).toString('base64url')}`;
}

/** The opaque content that restores this reasoning. */
function encryptedContent(r: ChatReasoning, envelope: ReasoningEnvelope): string {
  return r.provider === 'openai' && r.type === 'encrypted' ? r.data : envelope.seal([r]);
}

/** One piece of reasoning (its streamed text, and the whole of it once known) as a `reasoning` output item. */
export function reasoningItem(id: string, text: string, r: ChatReasoning | undefined, shown: ReasoningShown): Json {
  const summary = shown.summary && text !== '' ? [summaryPart(text)] : [];
  return {
    type: 'reasoning',
    id,
    summary,
    ...(shown.encrypted && r ? { encrypted_content: encryptedContent(r, shown.envelope) } : {}),
  };
}

/**
 * A replayed reasoning item as the core's reasoning: what the service sealed, or else OpenAI's own encrypted content
 * (with the item's id and summary, as OpenAI takes it back). An item without encrypted content restores nothing.
 */
export function reasoningOfItem(
  item: { id?: string; summary: unknown[]; encrypted_content?: string | null },
  envelope: ReasoningEnvelope,
): ChatReasoning[] {
  const content = item.encrypted_content;
  if (!content) return [];
  const sealed = envelope.open(content);
  if (sealed) return sealed;
  const summary = item.summary
    .flatMap((p) =>
      p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? [(p as { text: string }).text] : [],
    )
    .join('\n\n');
  return [
    { type: 'encrypted', provider: 'openai', data: content, ...(item.id ? { id: item.id } : {}), ...(summary ? { text: summary } : {}) },
  ];
}

export { reasoningText };
