import { randomBytes } from 'node:crypto';
import type { ChatReasoning, ChatStreamEvent, ChatToolCall } from '../types';
import type { GeminiPart, GenerateContentResponse } from './wire';

// Gemini's reasoning state as the core keeps it ("Thought signatures", ai.google.dev): a thought summary part
// (`thought: true`, when the request asks for thoughts) is readable reasoning; a `thoughtSignature` on a function
// call is opaque state tied to that call (the first call of each step carries one and must come back on it); a
// signature on another part (the last part of an answer that called nothing) is state of the turn. Replayed, each
// goes back on the part it came on.

type Part = NonNullable<NonNullable<NonNullable<GenerateContentResponse['candidates']>[number]['content']>['parts']>[number];

const newCallId = () => `call_${randomBytes(12).toString('hex')}`;

/** What one candidate's parts say, in order: answer text, calls (each with an id), and reasoning. */
export interface CandidateParts {
  text: string;
  toolCalls: ChatToolCall[];
  reasoning: ChatReasoning[];
}

export function readParts(parts: readonly Part[]): CandidateParts {
  const out: CandidateParts = { text: '', toolCalls: [], reasoning: [] };
  for (const p of parts) {
    if (p.thought && p.text !== undefined) {
      out.reasoning.push({
        type: 'text',
        provider: 'google',
        text: p.text,
        ...(p.thoughtSignature ? { signature: p.thoughtSignature } : {}),
      });
      continue;
    }
    if (p.functionCall) {
      const id = p.functionCall.id ?? newCallId();
      out.toolCalls.push({ id, name: p.functionCall.name, arguments: JSON.stringify(p.functionCall.args ?? {}) });
      if (p.thoughtSignature) out.reasoning.push({ type: 'encrypted', provider: 'google', data: p.thoughtSignature, callId: id });
      continue;
    }
    if (p.text) out.text += p.text;
    if (p.thoughtSignature) out.reasoning.push({ type: 'encrypted', provider: 'google', data: p.thoughtSignature });
  }
  return out;
}

/** Streams a candidate's parts chunk by chunk: thought text as reasoning deltas, each complete piece as it closes. */
export class PartStream {
  private thought: { text: string; signature?: string } | undefined;
  private calls = 0;
  /** A signature on answer text: state of the turn, given once the stream ends. */
  private answerSignature: string | undefined;

  *accept(parts: readonly Part[]): Generator<ChatStreamEvent> {
    for (const p of parts) {
      if (p.thought && p.text !== undefined) {
        this.thought ??= { text: '' };
        this.thought.text += p.text;
        if (p.thoughtSignature) this.thought.signature = p.thoughtSignature;
        if (p.text) yield { type: 'reasoning_delta', text: p.text };
        continue;
      }
      yield* this.closeThought();
      if (p.functionCall) {
        // Gemini streams a function call whole, in one part.
        const id = p.functionCall.id ?? newCallId();
        yield {
          type: 'tool_call',
          index: this.calls++,
          id,
          name: p.functionCall.name,
          arguments: JSON.stringify(p.functionCall.args ?? {}),
        };
        if (p.thoughtSignature)
          yield { type: 'reasoning', reasoning: { type: 'encrypted', provider: 'google', data: p.thoughtSignature, callId: id } };
        continue;
      }
      if (p.text) yield { type: 'delta', text: p.text };
      if (p.thoughtSignature) this.answerSignature = p.thoughtSignature;
    }
  }

  get toolCalls(): number {
    return this.calls;
  }

  *end(): Generator<ChatStreamEvent> {
    yield* this.closeThought();
    if (this.answerSignature) yield { type: 'reasoning', reasoning: { type: 'encrypted', provider: 'google', data: this.answerSignature } };
  }

  private *closeThought(): Generator<ChatStreamEvent> {
    if (!this.thought) return;
    const { text, signature } = this.thought;
    this.thought = undefined;
    yield { type: 'reasoning', reasoning: { type: 'text', provider: 'google', text, ...(signature ? { signature } : {}) } };
  }
}

/**
 * A model turn's parts as Gemini takes them back: its signed thoughts first, its text (with the turn's signature on
 * the last text part), its calls with their signatures. A step's first call the client kept no signature for gets the
 * dummy Google documents for calls it did not sign, so a client that dropped the state still gets an answer.
 */
export const UNSIGNED_CALL = 'skip_thought_signature_validator';

export function modelParts(
  text: GeminiPart[],
  calls: readonly ChatToolCall[],
  reasoning: readonly ChatReasoning[],
  args: (call: ChatToolCall) => Record<string, unknown>,
): GeminiPart[] {
  const own = reasoning.filter((r) => r.provider === 'google');
  const thoughts: GeminiPart[] = own.flatMap((r) =>
    r.type === 'text' && r.signature ? [{ text: r.text, thought: true, thoughtSignature: r.signature }] : [],
  );
  const turnSignature = own.find((r) => r.type === 'encrypted' && r.callId === undefined);
  const texts = text.map((p, i) =>
    turnSignature && turnSignature.type === 'encrypted' && i === text.length - 1 && 'text' in p
      ? { ...p, thoughtSignature: turnSignature.data }
      : p,
  );
  const callParts = calls.map((call, i): GeminiPart => {
    const signed = own.find((r) => r.type === 'encrypted' && r.callId === call.id);
    const functionCall = { name: call.name, args: args(call) };
    if (signed && signed.type === 'encrypted') return { functionCall, thoughtSignature: signed.data };
    const anySigned = calls.some((c) => own.some((r) => r.type === 'encrypted' && r.callId === c.id));
    return i === 0 && !anySigned ? { functionCall, thoughtSignature: UNSIGNED_CALL } : { functionCall };
  });
  return [...thoughts, ...texts, ...callParts];
}
