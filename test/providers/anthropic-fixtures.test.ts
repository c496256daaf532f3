import { anthropicAdapter } from '../../src/core/providers/anthropic';
import { ChatRequest, ChatStreamEvent } from '../../src/core/providers/types';
import { collect, failure, fixtureReader, Reply, replyWith, replyWithSse, stubConnection } from '../support/vendor-sandbox';

// Replays payloads recorded from Anthropic's documentation through a fetch stub, so the adapter is checked
// against the vendor's own examples and not only against our sandbox.

const fixture = fixtureReader('anthropic');
const chat = anthropicAdapter.chat!;
const stub = (reply: Reply) => stubConnection(anthropicAdapter, reply, { apiKey: 'sk-ant-test' });

const req: ChatRequest = { upstreamModel: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'Hello' }], maxTokens: 256 };

test('documented message response → text, usage, stop; request goes to the official URL with documented headers', async () => {
  const { conn, calls } = stub(replyWith(fixture('message.json')));
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
  const { conn, calls } = stub(replyWithSse(fixture('stream-basic.txt')));
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
  const { conn } = stub(replyWithSse(fixture('stream-overloaded.txt')));
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
  const { conn } = stub(replyWithSse(cut));
  const err = await failure(collect(chat.chatStream(req, conn)));
  expect(err.kind).toBe('upstream');
});

test('refusal without text → content_policy (JSON and stream)', async () => {
  expect((await failure(chat.chat(req, stub(replyWith(fixture('message-refusal.json'))).conn))).kind).toBe('content_policy');
  const { conn } = stub(replyWithSse(fixture('stream-refusal.txt')));
  expect((await failure(collect(chat.chatStream(req, conn)))).kind).toBe('content_policy');
});

test('refusal after some text keeps the text and reports content_filter', async () => {
  const body = JSON.parse(fixture('message-refusal.json')) as Record<string, unknown>;
  body.content = [{ type: 'text', text: 'I can help with part of that, but' }];
  const result = await chat.chat(req, stub(replyWith(JSON.stringify(body))).conn);
  expect(result.finishReason).toBe('content_filter');
  expect(result.text).toBe('I can help with part of that, but');
});

test.each([
  ['error-overloaded.json', 529, 'overloaded'],
  ['error-rate-limit.json', 429, 'rate_limited'],
  ['error-invalid-request.json', 400, 'bad_request'],
  ['error-authentication.json', 401, 'auth'],
  ['error-content-filter.json', 400, 'content_policy'],
])('documented error body %s (HTTP %i) → %s', async (file, status, kind) => {
  const err = await failure(chat.chat(req, stub(replyWith(fixture(file), status)).conn));
  expect(err.kind).toBe(kind);
  expect(err.upstreamStatus).toBe(status);
  expect(err.message).toBe((JSON.parse(fixture(file)) as { error: { message: string } }).error.message);
  const streamErr = await failure(collect(chat.chatStream(req, stub(replyWith(fixture(file), status)).conn)));
  expect(streamErr.kind).toBe(kind);
});
