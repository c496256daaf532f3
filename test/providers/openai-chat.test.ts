import { openaiAdapter } from '../../src/core/providers/openai';
import { nearestOpenAiEffort } from '../../src/core/providers/openai/chat';
import { ChatRequest, ChatStreamEvent } from '../../src/core/providers/types';
import { tokenPieces } from '../../src/sandbox/chat-completions-fake';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { failure, useVendorSandbox } from '../support/vendor-sandbox';

const CHUNK_DELAY_MS = 15;
const chat = openaiAdapter.chat!;

const openai = useVendorSandbox(openaiAdapter, createOpenAiSandbox({ chunkDelayMs: CHUNK_DELAY_MS }));
const { received: seen, conn, lastBody } = openai;

function ask(text: string, overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    upstreamModel: 'gpt-6-luna',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: text },
    ],
    maxTokens: 200,
    ...overrides,
  };
}

async function collect(events: AsyncIterable<ChatStreamEvent>): Promise<Array<ChatStreamEvent & { at: number }>> {
  const out: Array<ChatStreamEvent & { at: number }> = [];
  for await (const event of events) out.push({ ...event, at: Date.now() });
  return out;
}

describe('openai chat (against the sandbox)', () => {
  test('sends a Chat Completions request with bearer auth and max_completion_tokens; a reasoning model gets no temperature', async () => {
    const result = await chat.chat(ask('Tell me about otters', { temperature: 0.3, maxTokens: 120 }), conn());

    expect(seen).toHaveLength(1);
    expect(seen[0].method).toBe('POST');
    expect(seen[0].path).toBe('/v1/chat/completions');
    expect(seen[0].headers.authorization).toBe('Bearer test-key');
    expect(seen[0].headers['content-type']).toMatch(/application\/json/);
    expect(lastBody()).toEqual({
      model: 'gpt-6-luna',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Tell me about otters' },
      ],
      max_completion_tokens: 120,
    });

    expect(result.text).toContain('Sandbox reply from gpt-6-luna');
    expect(result.text).toContain('"Tell me about otters"');
    expect(result.finishReason).toBe('stop');
    // Hidden reasoning counts as output: at least the visible pieces.
    expect(result.usage.completionTokens).toBeGreaterThanOrEqual(tokenPieces(result.text).length);
    expect(result.usage.promptTokens).toBeGreaterThan(0);
  });

  test.each(['gpt-5.6-terra', 'gpt-6.1-sol', 'gpt-6.1-terra'])('%s gets max_completion_tokens and no temperature', async (model) => {
    const result = await chat.chat(ask('Hello', { upstreamModel: model, temperature: 0.5, maxTokens: 400 }), conn());
    const body = lastBody();
    expect(body.max_completion_tokens).toBe(400);
    expect(body).not.toHaveProperty('max_tokens');
    expect(body).not.toHaveProperty('temperature');
    expect(result.text).toContain(`Sandbox reply from ${model}`);
  });

  test('clamps maxTokens to the model output ceiling', async () => {
    await chat.chat(ask('Hello', { upstreamModel: 'gpt-6.1-sol', maxTokens: 200000 }), conn());
    expect(lastBody().max_completion_tokens).toBe(128000);
  });

  test('sends images as image_url data URIs', async () => {
    const image = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);
    const result = await chat.chat(
      {
        upstreamModel: 'gpt-6.1-sol',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this picture?' },
              { type: 'image', mime: 'image/png', data: image },
            ],
          },
        ],
        maxTokens: 100,
      },
      conn(),
    );
    const messages = lastBody().messages as Array<{ content: unknown }>;
    expect(messages[0].content).toEqual([
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${image.toString('base64')}` } },
    ]);
    expect(result.text).toContain('I received 1 image');
  });

  test('joins text-only content parts into a string', async () => {
    await chat.chat(
      {
        upstreamModel: 'gpt-6-luna',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'one' },
              { type: 'text', text: 'two' },
            ],
          },
        ],
        maxTokens: 50,
      },
      conn(),
    );
    expect((lastBody().messages as Array<{ content: unknown }>)[0].content).toBe('one\ntwo');
  });

  test('maps a cut-off answer to finishReason length', async () => {
    // The hidden reasoning spends the budget first, so the visible answer is at most what is left.
    const result = await chat.chat(ask('Tell me everything', { maxTokens: 3 }), conn());
    expect(result.finishReason).toBe('length');
    expect(tokenPieces(result.text).length).toBeLessThanOrEqual(3);
    expect(result.usage.completionTokens).toBe(3);
  });
});

describe('openai chat streaming (against the sandbox)', () => {
  test('yields deltas as they arrive, then usage, then finish', async () => {
    const request = ask('Stream me a story about a lighthouse');
    const expected = (await chat.chat(request, conn())).text;
    seen.length = 0;

    const events = await collect(chat.chatStream(request, conn()));
    const body = lastBody();
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });

    const deltas = events.filter((e) => e.type === 'delta');
    expect(deltas.length).toBe(tokenPieces(expected).length);
    expect(deltas.map((d) => (d.type === 'delta' ? d.text : '')).join('')).toBe(expected);
    // The fake writes one chunk every CHUNK_DELAY_MS: deltas must arrive spread out, not in one burst.
    expect(deltas[deltas.length - 1].at - deltas[0].at).toBeGreaterThanOrEqual((deltas.length - 1) * CHUNK_DELAY_MS * 0.5);

    const tail = events.slice(-2);
    // Usage counts the hidden reasoning tokens as output too.
    expect(tail[0]).toMatchObject({ type: 'usage' });
    expect(tail[0].type === 'usage' && tail[0].usage.completionTokens).toBeGreaterThan(deltas.length);
    expect(tail[1]).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  test('aborting the signal aborts the upstream request', async () => {
    const controller = new AbortController();
    const received: string[] = [];
    const run = (async () => {
      for await (const event of chat.chatStream(ask('A long story please'), conn(), controller.signal)) {
        if (event.type === 'delta') {
          received.push(event.text);
          controller.abort();
        }
      }
    })();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(received).toHaveLength(1);
    // The fake's response closes before it has written everything.
    expect(await openai.whenClosed(0)).toBe(true);
  });

  test('a stream cut off by the vendor fails as upstream after the first deltas', async () => {
    const received: string[] = [];
    const err = await failure(async () => {
      for await (const event of chat.chatStream(ask('[[fail:midstream]] go'), conn())) {
        if (event.type === 'delta') received.push(event.text);
      }
    });
    expect(received.length).toBeGreaterThan(0);
    expect(err.kind).toBe('upstream');
    expect(err.retryable).toBe(true);
  });

  test('a content-filtered stream fails as content_policy', async () => {
    const err = await failure(() => collect(chat.chatStream(ask('[[fail:policy]] something nasty'), conn())));
    expect(err.kind).toBe('content_policy');
  });
});

describe('openai chat errors (against the sandbox)', () => {
  test('a missing key is refused as auth (401)', async () => {
    const err = await failure(() => chat.chat(ask('hi'), conn({ apiKey: '' })));
    expect(err).toMatchObject({ kind: 'auth', upstreamStatus: 401, provider: 'openai' });
    expect(err.message).toMatch(/didn't provide an API key/);
  });

  test('a wrong key is refused as auth (401 invalid_api_key)', async () => {
    const err = await failure(() => chat.chat(ask('hi'), conn({ apiKey: 'invalid-key-123' })));
    expect(err).toMatchObject({ kind: 'auth', upstreamStatus: 401 });
    expect(err.message).toMatch(/Incorrect API key/);
  });

  test.each([
    ['[[fail:rate_limit]]', 'rate_limited', 429],
    ['[[fail:overloaded]]', 'overloaded', 503],
    ['[[fail:server]]', 'upstream', 500],
  ])('%s becomes %s', async (marker, kind, status) => {
    const err = await failure(() => chat.chat(ask(`${marker} hello`), conn()));
    expect(err).toMatchObject({ kind, upstreamStatus: status });
    expect(err.retryable).toBe(true);
  });

  test('429 insufficient_quota is quota: not retried (one request), not retryable', async () => {
    const err = await failure(() => chat.chat(ask('[[fail:balance]] hello'), conn()));
    expect(err).toMatchObject({ kind: 'quota', upstreamStatus: 429 });
    expect(err.retryable).toBe(false);
    expect(seen).toHaveLength(1);
  });

  test('a rate limit is retried within the attempts: three requests, then rate_limited', async () => {
    await failure(() => chat.chat(ask('[[fail:rate_limit]] hello'), conn()));
    expect(seen).toHaveLength(3);
  });

  test('a refused request body becomes bad_request', async () => {
    const err = await failure(() =>
      chat.chat(
        {
          upstreamModel: 'gpt-6.1-sol',
          messages: [{ role: 'user', content: [{ type: 'image', mime: 'application/pdf', data: Buffer.from('%PDF') }] }],
          maxTokens: 10,
        },
        conn(),
      ),
    );
    expect(err).toMatchObject({ kind: 'bad_request', upstreamStatus: 400 });
    expect(err.retryable).toBe(false);
  });

  test('a content-filtered answer becomes content_policy', async () => {
    const err = await failure(() => chat.chat(ask('[[fail:policy]] do something bad'), conn()));
    expect(err.kind).toBe('content_policy');
  });

  test('a reasoning model flagging the prompt (400 invalid_prompt) becomes content_policy', async () => {
    const err = await failure(() => chat.chat(ask('[[fail:policy]] do something bad', { upstreamModel: 'gpt-5.6-terra' }), conn()));
    expect(err).toMatchObject({ kind: 'content_policy', upstreamStatus: 400 });
    expect(err.message).toMatch(/flagged as potentially violating our usage policy/);
  });

  test('a vendor that never answers becomes timeout', async () => {
    const err = await failure(() => chat.chat(ask('[[fail:timeout]] wait'), conn({ timeoutMs: 300 })));
    expect(err.kind).toBe('timeout');
  });

  test('a body cut off mid-response becomes upstream', async () => {
    const err = await failure(() => chat.chat(ask('[[fail:midstream]] hi'), conn()));
    expect(err.kind).toBe('upstream');
  });
});

describe('reasoning effort on the wide scale', () => {
  test.each([
    ['gpt-6-luna', 'minimal', 'low'],
    ['gpt-6-luna', 'none', 'none'],
    ['gpt-6.2-sol', 'none', 'low'],
    ['gpt-6.2-sol', 'max', 'max'],
    ['gpt-5-mini', 'xhigh', 'high'],
    ['gpt-5-mini', 'minimal', 'minimal'],
    ['o3', 'max', 'high'],
  ] as const)('%s takes %s as %s', (model, effort, sent) => {
    expect(nearestOpenAiEffort(effort, model)).toBe(sent);
  });
});
