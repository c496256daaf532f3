import { deepseekAdapter } from '../../src/core/providers/deepseek';
import { ChatRequest, ProviderConnection } from '../../src/core/providers/types';
import { createDeepSeekSandbox } from '../../src/sandbox/deepseek';
import { bodyOf, collect, failure, fixtureReader, replyWith, stubConnection, useVendorSandbox } from '../support/vendor-sandbox';

const chat = deepseekAdapter.chat!;

const deepseek = useVendorSandbox(deepseekAdapter, createDeepSeekSandbox({ chunkDelayMs: 2 }));
const seen = deepseek.received;

function conn(overrides: Partial<ProviderConnection> = {}): ProviderConnection {
  // https://api.deepseek.com has no path: the sandbox base is the bare mount.
  return deepseek.conn({ baseUrl: deepseek.mountUrl(), ...overrides });
}

const ask = (text: string, model = 'deepseek-v4-flash', extra: Partial<ChatRequest> = {}): ChatRequest => ({
  upstreamModel: model,
  messages: [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: text },
  ],
  maxTokens: 500,
  ...extra,
});

describe('deepseek chat (against the sandbox)', () => {
  test('posts to /chat/completions under the bare base URL with bearer auth; v4-flash runs with thinking disabled', async () => {
    const result = await chat.chat(ask('Hello DeepSeek', 'deepseek-v4-flash', { temperature: 1.3 }), conn());
    expect(deepseekAdapter.defaultBaseUrl).toBe('https://api.deepseek.com');
    expect(seen[0].path).toBe('/chat/completions');
    expect(seen[0].headers.authorization).toBe('Bearer test-key');
    expect(bodyOf(seen[0])).toEqual({
      model: 'deepseek-v4-flash',
      messages: [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: 'Hello DeepSeek' },
      ],
      max_tokens: 500,
      temperature: 1.3,
      thinking: { type: 'disabled' },
    });
    expect(result.text).toContain('Sandbox reply from deepseek-v4-flash');
  });

  test('a base URL with a trailing slash still reaches the endpoint', async () => {
    const result = await chat.chat(ask('hi'), conn({ baseUrl: `${deepseek.mountUrl()}/` }));
    expect(result.finishReason).toBe('stop');
  });

  test('maxTokens above the model ceiling is clamped (the V4 models write at most 384K)', async () => {
    await chat.chat(ask('hi', 'deepseek-v4-flash', { maxTokens: 500000 }), conn());
    expect(bodyOf(seen[0]).max_tokens).toBe(384000);
  });

  test('deepseek-v4-flash with a reasoning effort switches thinking on (low/high as DeepSeek names them)', async () => {
    const result = await chat.chat(ask('9.11 or 9.8?', 'deepseek-v4-flash', { reasoningEffort: 'medium' }), conn());
    expect(bodyOf(seen[0])).toMatchObject({ thinking: { type: 'enabled' }, reasoning_effort: 'high' });
    expect(result.text).not.toContain('Sandbox reasoning');
  });

  test.each([
    ['deepseek-v4-pro', undefined],
    ['deepseek-v4-flash', 'high' as const],
  ])('%s after a tool call whose reasoning_content the client dropped runs without thinking, effort %s', async (model, effort) => {
    const call = { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
    const messages: ChatRequest['messages'] = [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: '', toolCalls: [call] },
      { role: 'tool', content: '18°C, clear', toolCallId: 'call_1' },
    ];
    const tools = [{ name: 'get_weather', parameters: { type: 'object', properties: {} } }];
    const result = await chat.chat({ ...ask('x', model, { reasoningEffort: effort, tools }), messages }, conn());
    expect(bodyOf(seen[0]).thinking).toEqual({ type: 'disabled' });
    expect(bodyOf(seen[0])).not.toHaveProperty('reasoning_effort');
    expect(result.text).toMatch(/^Sandbox reply/);
  });

  test.each([
    ['deepseek-v4-pro', undefined],
    ['deepseek-v4-flash', 'high' as const],
  ])('%s: a tool loop that keeps its reasoning_content keeps thinking (effort %s), and it goes back as it came', async (model, effort) => {
    const tools = [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
    const question: ChatRequest['messages'][number] = { role: 'user', content: 'Weather in Paris?' };
    const first = await chat.chat({ ...ask('x', model, { reasoningEffort: effort, tools }), messages: [question] }, conn());
    expect(first.toolCalls).toHaveLength(1);
    expect(first.reasoning).toEqual([{ type: 'text', provider: 'deepseek', text: expect.stringMatching(/Sandbox reasoning/) }]);
    const messages: ChatRequest['messages'] = [
      question,
      { role: 'assistant', content: '', reasoning: first.reasoning, toolCalls: first.toolCalls },
      { role: 'tool', content: '18°C, clear', toolCallId: first.toolCalls![0].id },
    ];
    const second = await chat.chat({ ...ask('x', model, { reasoningEffort: effort, tools }), messages }, conn());
    const body = bodyOf(seen[1]);
    expect(body.thinking).not.toEqual({ type: 'disabled' });
    expect((body.messages as Array<Record<string, unknown>>)[1].reasoning_content).toBe((first.reasoning![0] as { text: string }).text);
    expect(second.reasoning?.[0]).toMatchObject({ type: 'text', provider: 'deepseek' });
    expect(second.text).toMatch(/^Sandbox reply/);
  });

  test('deepseek-v4-pro thinks (the vendor default) while no tool call is in the conversation', async () => {
    await chat.chat(ask('9.11 or 9.8?', 'deepseek-v4-pro'), conn());
    expect(bodyOf(seen[0])).not.toHaveProperty('thinking');
  });

  test('the retired deepseek-chat id is gone at DeepSeek (404 → bad_request)', async () => {
    const err = await failure(chat.chat(ask('hi', 'deepseek-chat'), conn()));
    expect(err.kind).toBe('bad_request');
  });

  test('deepseek-v4-pro: no temperature, and reasoning_content never becomes answer text', async () => {
    const result = await chat.chat(ask('9.11 or 9.8?', 'deepseek-v4-pro', { temperature: 0.2 }), conn());
    expect(bodyOf(seen[0])).not.toHaveProperty('temperature');
    expect(result.text).toMatch(/^Sandbox reply from deepseek-v4-pro/);
    expect(result.text).not.toContain('Sandbox reasoning');
    // DeepSeek counts reasoning inside completion_tokens.
    expect(result.usage.completionTokens).toBeGreaterThan(result.text.match(/\S+\s*/g)!.length);

    const events = await collect(chat.chatStream(ask('9.11 or 9.8?', 'deepseek-v4-pro'), conn()));
    const deltas = events.filter((e) => e.type === 'delta');
    expect(deltas.map((e) => (e.type === 'delta' ? e.text : '')).join('')).toBe(result.text);
    expect(events.slice(-2)).toEqual([
      { type: 'usage', usage: result.usage },
      { type: 'finish', finishReason: 'stop' },
    ]);
  });

  test('images are refused before any request (DeepSeek takes text only)', async () => {
    const err = await failure(
      chat.chat(
        {
          upstreamModel: 'deepseek-v4-flash',
          messages: [{ role: 'user', content: [{ type: 'image', mime: 'image/png', data: Buffer.from('png') }] }],
          maxTokens: 10,
        },
        conn(),
      ),
    );
    expect(err.kind).toBe('bad_request');
    expect(seen).toHaveLength(0);
  });

  test.each([
    ['invalid-key', undefined, 'auth', 401],
    ['test-key', '[[fail:balance]]', 'auth', 402],
    ['test-key', '[[fail:rate_limit]]', 'rate_limited', 429],
    ['test-key', '[[fail:overloaded]]', 'overloaded', 503],
    ['test-key', '[[fail:server]]', 'upstream', 500],
  ])('key %s, marker %s: %s (%d)', async (apiKey, marker, kind, status) => {
    const err = await failure(chat.chat(ask(`${marker ?? ''} hi`), conn({ apiKey })));
    expect(err).toMatchObject({ kind, upstreamStatus: status, provider: 'deepseek' });
  });

  test('a stream the vendor breaks off fails as upstream', async () => {
    const err = await failure(collect(chat.chatStream(ask('[[fail:midstream]] go'), conn())));
    expect(err.kind).toBe('upstream');
  });
});

describe('deepseek adapter replaying documented payloads', () => {
  const fixture = fixtureReader('deepseek');
  const stub = (name: string, status = 200, type = 'application/json') =>
    stubConnection(deepseekAdapter, replyWith(fixture(name), status, type), { apiKey: 'sk-test' });
  const stubbed = (name: string, status = 200, type = 'application/json') => stub(name, status, type).conn;

  test('recorded deepseek-v4-flash response', async () => {
    const { conn: stubConn, calls } = stub('chat-completion.json');
    const result = await chat.chat(ask('hi'), stubConn);
    expect(calls[calls.length - 1].url).toBe('https://api.deepseek.com/chat/completions');
    expect(result).toEqual({
      text: 'Hello! How can I assist you today?',
      usage: { promptTokens: 14, completionTokens: 9 },
      finishReason: 'stop',
    });
  });

  test('reasoner response: the answer without the chain of thought, which is kept as the turn reasoning', async () => {
    const result = await chat.chat(ask('9.11 and 9.8, which is greater?', 'deepseek-v4-pro'), stubbed('chat-completion-reasoner.json'));
    expect(result.text).toBe('9.8 is greater than 9.11.');
    expect(result.usage).toEqual({ promptTokens: 20, completionTokens: 58, reasoningTokens: 50 });
    expect(result.reasoning).toEqual([{ type: 'text', provider: 'deepseek', text: expect.stringMatching(/./) }]);
  });

  test('reasoner stream with a keep-alive comment: reasoning deltas, the whole reasoning, then the answer', async () => {
    const events = await collect(
      chat.chatStream(
        ask('9.11 and 9.8, which is greater?', 'deepseek-v4-pro'),
        stubbed('chat-stream-reasoner.txt', 200, 'text/event-stream'),
      ),
    );
    expect(events).toEqual([
      { type: 'reasoning_delta', text: 'Let me' },
      { type: 'reasoning_delta', text: 'think step by step' },
      { type: 'reasoning', reasoning: { type: 'text', provider: 'deepseek', text: 'Let methink step by step' } },
      { type: 'delta', text: '9.8 is greater' },
      { type: 'delta', text: ' than 9.11.' },
      { type: 'usage', usage: { promptTokens: 20, completionTokens: 58, reasoningTokens: 50 } },
      { type: 'finish', finishReason: 'stop' },
    ]);
  });

  test('401 authentication failure', async () => {
    const err = await failure(chat.chat(ask('hi'), stubbed('error-authentication.json', 401)));
    expect(err).toMatchObject({ kind: 'auth', upstreamStatus: 401 });
    expect(err.message).toMatch(/Authentication Fails/);
  });
});
