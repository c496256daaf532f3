import { z } from 'zod';
import type { ReasoningEnvelope } from '../../core/generations/chat/reasoning-envelope';
import type { ChatReasoning, ProviderName } from '../../core/providers/types';

// Reasoning on /v1/chat/completions, in the forms the common gateways use (docs/compatibility.md, "Reasoning on chat
// completions"): the readable text as `reasoning_content` (DeepSeek's field, which LiteLLM and vLLM use too), and the
// state that restores it as OpenRouter's `reasoning_details` (reasoning.text with its signature, reasoning.encrypted
// with opaque data, each with a `format` naming the vendor). A replayed assistant message may carry either, or
// LiteLLM's `thinking_blocks`; each goes back to the vendor that produced it.

const FORMATS: Partial<Record<ProviderName, string>> = {
  anthropic: 'anthropic-claude-v1',
  openai: 'openai-responses-v1',
  google: 'google-gemini-v1',
};
const providerOfFormat = (format: string | null | undefined): ProviderName | undefined =>
  (Object.entries(FORMATS).find(([, f]) => f === format)?.[0] as ProviderName | undefined) ?? undefined;

/** The answer's readable reasoning as one text, or undefined when it has none. */
export function reasoningContent(reasoning: readonly ChatReasoning[] | undefined): string | undefined {
  const text = (reasoning ?? []).flatMap((r) => (r.type === 'text' && r.text !== '' ? [r.text] : [])).join('\n\n');
  return text !== '' ? text : undefined;
}

/** One piece of reasoning as `reasoning_details` entries. */
export function reasoningDetails(r: ChatReasoning, index: number): Record<string, unknown>[] {
  const format = FORMATS[r.provider] ?? 'unknown';
  switch (r.type) {
    case 'text':
      return [{ type: 'reasoning.text', text: r.text, ...(r.signature ? { signature: r.signature } : {}), format, index }];
    case 'redacted':
      return [{ type: 'reasoning.encrypted', data: r.data, format, index }];
    case 'encrypted': {
      const id = r.id ?? r.callId;
      return [
        ...(r.text ? [{ type: 'reasoning.summary', summary: r.text, format, index }] : []),
        { type: 'reasoning.encrypted', data: r.data, ...(id ? { id } : {}), format, index },
      ];
    }
  }
}

export const reasoningDetail = z.looseObject({
  type: z.string(),
  text: z.string().nullish(),
  summary: z.string().nullish(),
  signature: z.string().nullish(),
  data: z.string().nullish(),
  id: z.string().nullish(),
  format: z.string().nullish(),
});

export const thinkingBlock = z.looseObject({
  type: z.string(),
  thinking: z.string().nullish(),
  signature: z.string().nullish(),
  data: z.string().nullish(),
});

export interface ReplayedReasoning {
  reasoning_content?: string | null;
  reasoning?: string | null;
  reasoning_details?: Array<z.infer<typeof reasoningDetail>> | null;
  thinking_blocks?: Array<z.infer<typeof thinkingBlock>> | null;
}

/** An entry's state as the core's reasoning; `model` is the vendor of the request's model, for entries that name none. */
function fromDetail(d: z.infer<typeof reasoningDetail>, model: ProviderName | undefined, envelope: ReasoningEnvelope): ChatReasoning[] {
  const provider = providerOfFormat(d.format) ?? model;
  if (d.type === 'reasoning.encrypted' && d.data) {
    const sealed = envelope.open(d.data);
    if (sealed) return sealed;
    if (!provider) return [];
    if (provider === 'anthropic') return [{ type: 'redacted', provider, data: d.data }];
    const id = d.id ?? undefined;
    return [{ type: 'encrypted', provider, data: d.data, ...(id ? (provider === 'openai' ? { id } : { callId: id }) : {}) }];
  }
  if (d.type === 'reasoning.text' && provider) {
    return [{ type: 'text', provider, text: d.text ?? '', ...(d.signature ? { signature: d.signature } : {}) }];
  }
  return [];
}

/** OpenAI's summary travels with the encrypted item it belongs to. */
function withSummaries(details: Array<z.infer<typeof reasoningDetail>>, reasoning: ChatReasoning[]): ChatReasoning[] {
  const summary = details.flatMap((d) => (d.type === 'reasoning.summary' && d.summary ? [d.summary] : [])).join('\n\n');
  if (summary === '') return reasoning;
  return reasoning.map((r) => (r.type === 'encrypted' && r.provider === 'openai' && !r.text ? { ...r, text: summary } : r));
}

/** A replayed assistant message's reasoning, from whichever form it carries (reasoning_details first). */
export function replayedReasoning(m: ReplayedReasoning, model: ProviderName | undefined, envelope: ReasoningEnvelope): ChatReasoning[] {
  if (m.reasoning_details?.length)
    return withSummaries(
      m.reasoning_details,
      m.reasoning_details.flatMap((d) => fromDetail(d, model, envelope)),
    );
  if (m.thinking_blocks?.length) {
    return m.thinking_blocks.flatMap((b): ChatReasoning[] => {
      if (b.type === 'redacted_thinking' && b.data) return [{ type: 'redacted', provider: 'anthropic', data: b.data }];
      if (b.type === 'thinking')
        return [{ type: 'text', provider: 'anthropic', text: b.thinking ?? '', ...(b.signature ? { signature: b.signature } : {}) }];
      return [];
    });
  }
  const text = m.reasoning_content ?? m.reasoning;
  return text && model ? [{ type: 'text', provider: model, text }] : [];
}
