import { anthropicAdapter } from '../../src/core/providers/anthropic';
import { ChatRequest, ChatStreamEvent } from '../../src/core/providers/types';
import { createAnthropicSandbox } from '../../src/sandbox/anthropic';
import { collect, failure, useVendorSandbox } from '../support/vendor-sandbox';
import { waitUntil } from '../support/wait';

const DELAY_MS = 15;
const chat = anthropicAdapter.chat!;

const { received, cutShort, conn, lastBody } = useVendorSandbox(anthropicAdapter, createAnthropicSandbox({ streamDelayMs: DELAY_MS }));

function ask(text: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { upstreamModel: 'claude-haiku-4-5', messages: [{ role: 'user', content: text }], maxTokens: 200, ...extra };
}

describe('anthropic adapter against the sandbox', () => {
  test('maps the request: path, auth headers, top-level system, merged turns, base64 image, clamped temperature', async () => {
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    await chat.chat(
      {
        upstreamModel: 'claude-sonnet-4-5',
        maxTokens: 321,
        temperature: 1.7,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'system', content: 'Answer in English.' },
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'ok' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image', mime: 'image/png', data: png },
            ],
          },
          { role: 'user', content: 'and be quick' },
        ],
      },
      conn(),
    );
    const req = received[0];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/messages');
    expect(req.headers['x-api-key']).toBe('test-key');
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.headers.authorization).toBeUndefined();
    const body = lastBody();
    expect(body.model).toBe('claude-sonnet-4-5');
    expect(body.max_tokens).toBe(321);
    expect(body.temperature).toBe(1);
    expect(body.system).toBe('Be brief.\n\nAnswer in English.');
    expect(body.stream).toBeUndefined();
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } },
          { type: 'text', text: 'and be quick' },
        ],
      },
    ]);
  });

  test('maps the response: text, usage and end_turn → stop', async () => {
    const result = await chat.chat(ask('tell me about tides'), conn());
    expect(result.text).toContain('Sandbox reply from claude-haiku-4-5');
    expect(result.text).toContain('tell me about tides');
    expect(result.finishReason).toBe('stop');
    expect(result.usage.completionTokens).toBe(result.text.match(/\S+\s*/g)!.length);
    expect(result.usage.promptTokens).toBeGreaterThan(0);
  });

  test('max_tokens stop reason maps to length', async () => {
    const result = await chat.chat(ask('a long question about everything', { maxTokens: 3 }), conn());
    expect(result.finishReason).toBe('length');
    expect(result.usage.completionTokens).toBe(3);
    expect(result.text.trim().split(/\s+/)).toHaveLength(3);
  });

  test('streams deltas in order as they arrive, then usage, then finish', async () => {
    const whole = await chat.chat(ask('stream this please'), conn());
    const times: number[] = [];
    const events: ChatStreamEvent[] = [];
    for await (const ev of chat.chatStream(ask('stream this please'), conn())) {
      events.push(ev);
      times.push(Date.now());
    }
    expect(lastBody().stream).toBe(true);
    const deltas = events.filter((e): e is { type: 'delta'; text: string } => e.type === 'delta');
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.map((d) => d.text).join('')).toBe(whole.text);
    expect(events.slice(-2)).toEqual([
      { type: 'usage', usage: whole.usage },
      { type: 'finish', finishReason: 'stop' },
    ]);
    // Each delta is its own SSE event written after a pause: they must not arrive all at once.
    const spread = times[deltas.length - 1] - times[0];
    expect(spread).toBeGreaterThanOrEqual((deltas.length - 1) * DELAY_MS * 0.5);
  });

  test('a missing API key is refused with the vendor 401 → auth', async () => {
    const err = await failure(chat.chat(ask('hi'), conn({ apiKey: '' })));
    expect(err.kind).toBe('auth');
    expect(err.upstreamStatus).toBe(401);
  });

  test('[[fail:overloaded]] → 529 overloaded, for chat and for streams', async () => {
    const err = await failure(chat.chat(ask('hi [[fail:overloaded]]'), conn()));
    expect(err.kind).toBe('overloaded');
    expect(err.upstreamStatus).toBe(529);
    expect(err.message).toBe('Overloaded');
    const streamErr = await failure(collect(chat.chatStream(ask('hi [[fail:overloaded]]'), conn())));
    expect(streamErr.kind).toBe('overloaded');
  });

  test('[[fail:policy]] → stop_reason refusal without text → content_policy', async () => {
    expect((await failure(chat.chat(ask('[[fail:policy]]'), conn()))).kind).toBe('content_policy');
    expect((await failure(collect(chat.chatStream(ask('[[fail:policy]]'), conn())))).kind).toBe('content_policy');
  });

  test('[[fail:upstream]] → 500 api_error → upstream (retryable)', async () => {
    const err = await failure(chat.chat(ask('[[fail:upstream]]'), conn()));
    expect(err.kind).toBe('upstream');
    expect(err.retryable).toBe(true);
  });

  test('[[fail:timeout]] → timeout once conn.timeoutMs passes', async () => {
    const err = await failure(chat.chat(ask('[[fail:timeout]]'), conn({ timeoutMs: 300 })));
    expect(err.kind).toBe('timeout');
  });

  test('[[fail:midstream]] → some deltas, then an upstream error when the connection drops', async () => {
    const seen: ChatStreamEvent[] = [];
    const err = await failure(
      (async () => {
        for await (const ev of chat.chatStream(ask('go [[fail:midstream]]'), conn())) seen.push(ev);
      })(),
    );
    expect(err.kind).toBe('upstream');
    expect(seen.length).toBe(3);
    expect(seen.every((e) => e.type === 'delta')).toBe(true);
  });

  test('[[fail:stream-error]] → the mid-stream `error` event (overloaded_error) becomes overloaded', async () => {
    const seen: ChatStreamEvent[] = [];
    const err = await failure(
      (async () => {
        for await (const ev of chat.chatStream(ask('go [[fail:stream-error]]'), conn())) seen.push(ev);
      })(),
    );
    expect(err.kind).toBe('overloaded');
    expect(seen.filter((e) => e.type === 'delta')).toHaveLength(3);
    expect(seen.some((e) => e.type === 'finish')).toBe(false);
  });

  test('aborting the signal aborts the upstream request mid-stream', async () => {
    const ac = new AbortController();
    let deltas = 0;
    await expect(
      (async () => {
        for await (const ev of chat.chatStream(ask('a rather long message to stream back slowly'), conn(), ac.signal)) {
          if (ev.type === 'delta' && ++deltas === 2) ac.abort();
        }
      })(),
    ).rejects.toThrow();
    expect(deltas).toBe(2);
    await waitUntil(() => cutShort.length > 0, 5000, 'the fake saw the connection close');
    expect(cutShort).toEqual([true]);
  });

  test('a consumer that stops iterating closes the upstream connection', async () => {
    for await (const ev of chat.chatStream(ask('a rather long message to stream back slowly'), conn())) {
      if (ev.type === 'delta') break;
    }
    await waitUntil(() => cutShort.length > 0, 5000, 'the fake saw the connection close');
    expect(cutShort).toEqual([true]);
  });
});

describe('anthropic sandbox speaks the documented protocol', () => {
  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(`${conn().baseUrl}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  test('without anthropic-version → 400 invalid_request_error in the documented error shape', async () => {
    const res = await post({ 'x-api-key': 'k' }, { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    });
  });

  test('a "system" role message is refused, as the real API does', async () => {
    const res = await post(
      { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      { model: 'm', max_tokens: 5, messages: [{ role: 'system', content: 'x' }] },
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/top-level `system` parameter/);
  });

  test('SSE events carry matching `event:` names and JSON `type`s in the documented order', async () => {
    const res = await post(
      { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      { model: 'm', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] },
    );
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await res.text()).trim().split('\n\n');
    const names = frames.map((f) => /^event: (\w+)$/m.exec(f)![1]);
    const types = frames.map((f) => (JSON.parse(/^data: (.*)$/m.exec(f)![1]) as { type: string }).type);
    expect(types).toEqual(names);
    expect(names.slice(0, 3)).toEqual(['message_start', 'content_block_start', 'ping']);
    expect(names.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(names.slice(3, -3).every((n) => n === 'content_block_delta')).toBe(true);
  });
});
