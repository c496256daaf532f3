import { readFileSync } from 'node:fs';
import path from 'node:path';
import { anthropicAdapter } from '../../src/core/providers/anthropic';
import { ChatRequest, ChatStreamEvent, ProviderConnection, ProviderError } from '../../src/core/providers/types';

// Replays payloads recorded from Anthropic's documentation through a fetch stub, so the adapter is checked
// against the vendor's own examples and not only against our sandbox.

const fixture = (name: string) => readFileSync(path.join(__dirname, '../fixtures/anthropic', name), 'utf8');
const chat = anthropicAdapter.chat!;

/** A body that arrives in small uneven pieces, the way a network delivers SSE. */
function trickle(text: string, size = 7): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

interface Call {
  url: string;
  init: RequestInit;
}

function stub(status: number, body: string | ReadableStream<Uint8Array>, contentType = 'application/json') {
  const calls: Call[] = [];
  const fn = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), init: init ?? {} });
    return new Response(body, { status, headers: { 'content-type': contentType } });
  }) as typeof fetch;
  const conn: ProviderConnection = {
    apiKey: 'sk-ant-test',
    baseUrl: anthropicAdapter.defaultBaseUrl,
    sandbox: false,
    fetch: fn,
    timeoutMs: 5000,
  };
  return { conn, calls };
}

const req: ChatRequest = { upstreamModel: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'Hello' }], maxTokens: 256 };

async function collect(events: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const ev of events) out.push(ev);
  return out;
}

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error('expected a ProviderError');
}

test('documented message response → text, usage, stop; request goes to the official URL with documented headers', async () => {
  const { conn, calls } = stub(200, fixture('message.json'));
  const result = await chat.chat(req, conn);
  expect(result).toEqual({ text: 'Hi! My name is Claude.', finishReason: 'stop', usage: { promptTokens: 2095, completionTokens: 503 } });
  expect(calls[0].url).toBe('https://api.anthropic.com/v1/messages');
  const headers = calls[0].init.headers as Record<string, string>;
  expect(headers['x-api-key']).toBe('sk-ant-test');
  expect(headers['anthropic-version']).toBe('2023-06-01');
  expect(JSON.parse(calls[0].init.body as string)).toEqual({
    model: 'claude-haiku-4-5',
    max_tokens: 256,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
  });
});

test('documented basic streaming transcript → deltas "Hello", "!", usage 25/15, finish stop (ping ignored)', async () => {
  const { conn, calls } = stub(200, trickle(fixture('stream-basic.txt')), 'text/event-stream');
  const events = await collect(chat.chatStream(req, conn));
  expect(events).toEqual([
    { type: 'delta', text: 'Hello' },
    { type: 'delta', text: '!' },
    { type: 'usage', usage: { promptTokens: 25, completionTokens: 15 } },
    { type: 'finish', finishReason: 'stop' },
  ]);
  expect(JSON.parse(calls[0].init.body as string).stream).toBe(true);
});

test('documented mid-stream error event (overloaded_error) → overloaded after the first delta', async () => {
  const { conn } = stub(200, trickle(fixture('stream-overloaded.txt')), 'text/event-stream');
  const seen: ChatStreamEvent[] = [];
  const err = await failure(
    (async () => {
      for await (const ev of chat.chatStream(req, conn)) seen.push(ev);
    })(),
  );
  expect(seen).toEqual([{ type: 'delta', text: 'Hello' }]);
  expect(err.kind).toBe('overloaded');
  expect(err.message).toBe('Overloaded');
});

test('a transcript cut before message_stop is an upstream failure, not a silent success', async () => {
  const cut = fixture('stream-basic.txt').split('event: message_delta')[0];
  const { conn } = stub(200, trickle(cut), 'text/event-stream');
  const err = await failure(collect(chat.chatStream(req, conn)));
  expect(err.kind).toBe('upstream');
});

test('refusal without text → content_policy (JSON and stream)', async () => {
  expect((await failure(chat.chat(req, stub(200, fixture('message-refusal.json')).conn))).kind).toBe('content_policy');
  const { conn } = stub(200, trickle(fixture('stream-refusal.txt')), 'text/event-stream');
  expect((await failure(collect(chat.chatStream(req, conn)))).kind).toBe('content_policy');
});

test('refusal after some text keeps the text and reports content_filter', async () => {
  const body = JSON.parse(fixture('message-refusal.json')) as Record<string, unknown>;
  body.content = [{ type: 'text', text: 'I can help with part of that, but' }];
  const result = await chat.chat(req, stub(200, JSON.stringify(body)).conn);
  expect(result.finishReason).toBe('content_filter');
  expect(result.text).toBe('I can help with part of that, but');
});

test.each([
  ['error-overloaded.json', 529, 'overloaded'],
  ['error-rate-limit.json', 429, 'overloaded'],
  ['error-invalid-request.json', 400, 'bad_request'],
  ['error-authentication.json', 401, 'auth'],
  ['error-content-filter.json', 400, 'content_policy'],
])('documented error body %s (HTTP %i) → %s', async (file, status, kind) => {
  const err = await failure(chat.chat(req, stub(status, fixture(file)).conn));
  expect(err.kind).toBe(kind);
  expect(err.upstreamStatus).toBe(status);
  expect(err.message).toBe((JSON.parse(fixture(file)) as { error: { message: string } }).error.message);
  const streamErr = await failure(collect(chat.chatStream(req, stub(status, fixture(file)).conn)));
  expect(streamErr.kind).toBe(kind);
});
