import { ApiFailure, toErrorBody } from '../lib/api-error';
import type { ChatBody } from '../lib/chat-request';
import { SseParser } from '../lib/sse';
import { authedFetch } from './client';

export interface StreamEnd {
  status: 'completed' | 'failed';
  tokens_spent?: number;
  balance?: number;
  error?: string;
  code?: string;
  /** The model's own token counts of the answer (the stream's `usage`). */
  usage?: { input: number; output: number };
}

interface Chunk {
  choices?: { delta?: { content?: string | null } }[];
  service?: { tokens_spent?: number; balance?: number };
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string; code?: string };
}

/**
 * Sends a chat-completions request to `POST /v1/chat/completions` (the request "View code" shows) and streams the
 * answer: `data:` chunks with content deltas, a last chunk with `usage` and the billing object `service`, `[DONE]`.
 * With `apiKey` the request is made with that key instead of the session (to try a key's limits).
 */
export async function streamChat(
  body: ChatBody,
  apiKey: string | null,
  onDelta: (text: string) => void,
  signal: AbortSignal,
): Promise<StreamEnd> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/event-stream' };
  if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
  const request = new Request(new URL('/v1/chat/completions', window.location.origin), {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal,
    credentials: 'same-origin',
  });
  const response = await authedFetch(request);
  if (!response.ok || !response.body) {
    const payload: unknown = await response.json().catch(() => null);
    throw new ApiFailure(response.status, toErrorBody(response.status, payload));
  }
  const reader = response.body.pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>).getReader();
  const parser = new SseParser();
  let end: StreamEnd = { status: 'failed', error: 'The stream ended early' };
  let usage: StreamEnd['usage'];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const event of parser.push(value)) {
      if (event.data === '[DONE]') continue;
      const chunk = JSON.parse(event.data) as Chunk;
      if (chunk.error) {
        end = { status: 'failed', error: chunk.error.message, code: chunk.error.code, tokens_spent: chunk.service?.tokens_spent };
        continue;
      }
      const delta = chunk.choices?.[0]?.delta?.content;
      if (delta) onDelta(delta);
      if (chunk.usage) usage = { input: chunk.usage.prompt_tokens ?? 0, output: chunk.usage.completion_tokens ?? 0 };
      if (chunk.service) end = { status: 'completed', ...chunk.service };
    }
  }
  return end.status === 'completed' && usage ? { ...end, usage } : end;
}
