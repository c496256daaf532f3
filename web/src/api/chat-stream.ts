import { ApiFailure, toErrorBody } from '../lib/api-error';
import { SseParser } from '../lib/sse';
import { api } from './client';

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface StreamEnd {
  status: string;
  tokens_spent?: number;
  balance?: number;
  error?: string | null;
}

/**
 * Streams a text model's answer through `POST /api/v2/generate/stream` (server-sent events `generation_start`,
 * `content_delta {text}`, `generation_end {status, tokens_spent, balance, error}`, `heartbeat`).
 */
export async function streamChat(model: string, messages: ChatTurn[], onDelta: (text: string) => void, signal: AbortSignal): Promise<StreamEnd> {
  const { data, response, error } = await api.POST('/api/v2/generate/stream', { body: { model, messages }, parseAs: 'stream', signal });
  if (!response.ok || !data) throw new ApiFailure(response.status, toErrorBody(response.status, error));
  const reader = (data as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>).getReader();
  const parser = new SseParser();
  let end: StreamEnd = { status: 'failed', error: 'The stream ended early' };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const event of parser.push(value)) {
      if (event.event === 'content_delta') onDelta((JSON.parse(event.data) as { text: string }).text);
      else if (event.event === 'generation_end') end = JSON.parse(event.data) as StreamEnd;
    }
  }
  return end;
}
