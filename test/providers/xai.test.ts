import sharp from 'sharp';
import { xaiAdapter } from '../../src/core/providers/xai';
import { ChatRequest } from '../../src/core/providers/types';
import { createXaiSandbox } from '../../src/sandbox/xai';
import { bodyOf, collect, failure, fixtureReader, replyWith, stubConnection, useVendorSandbox } from '../support/vendor-sandbox';

const chat = xaiAdapter.chat!;
const media = xaiAdapter.media!;

const { received: seen, conn } = useVendorSandbox(xaiAdapter, createXaiSandbox({ chunkDelayMs: 2 }));

const ask = (text: string, model = 'grok-3', extra: Partial<ChatRequest> = {}): ChatRequest => ({
  upstreamModel: model,
  messages: [{ role: 'user', content: text }],
  maxTokens: 300,
  ...extra,
});

describe('xai chat (against the sandbox)', () => {
  test('posts to /v1/chat/completions with bearer auth, max_tokens and temperature', async () => {
    const result = await chat.chat(ask('Hi Grok', 'grok-3', { temperature: 0.7 }), conn());
    expect(xaiAdapter.defaultBaseUrl).toBe('https://api.x.ai/v1');
    expect(seen[0].path).toBe('/v1/chat/completions');
    expect(seen[0].headers.authorization).toBe('Bearer test-key');
    expect(bodyOf(seen[0])).toEqual({
      model: 'grok-3',
      messages: [{ role: 'user', content: 'Hi Grok' }],
      max_tokens: 300,
      temperature: 0.7,
    });
    expect(result.text).toContain('Sandbox reply from grok-3');
    expect(result.finishReason).toBe('stop');
  });

  test('grok-3-mini: reasoning_content is not answer text, reasoning tokens count as output', async () => {
    const result = await chat.chat(ask('What is 2+2?', 'grok-3-mini'), conn());
    expect(result.text).toMatch(/^Sandbox reply from grok-3-mini/);
    expect(result.text).not.toContain('Sandbox reasoning');
    const answerWords = result.text.match(/\S+\s*/g)!.length;
    expect(result.usage.completionTokens).toBeGreaterThan(answerWords);

    const events = await collect(chat.chatStream(ask('What is 2+2?', 'grok-3-mini'), conn()));
    const streamed = events.map((e) => (e.type === 'delta' ? e.text : '')).join('');
    expect(streamed).toBe(result.text);
    expect(events.find((e) => e.type === 'usage')).toEqual({ type: 'usage', usage: result.usage });
    expect(events[events.length - 1]).toEqual({ type: 'finish', finishReason: 'stop' });
  });

  test('a missing key is a 401 and a wrong key a 400, both auth', async () => {
    expect(await failure(chat.chat(ask('x'), conn({ apiKey: '' })))).toMatchObject({ kind: 'auth', upstreamStatus: 401 });
    const wrong = await failure(chat.chat(ask('x'), conn({ apiKey: 'invalid-xai-key' })));
    expect(wrong).toMatchObject({ kind: 'auth', upstreamStatus: 400 });
    expect(wrong.message).toMatch(/Incorrect API key provided/);
  });

  test.each([
    ['[[fail:overloaded]]', 'overloaded'],
    ['[[fail:rate_limit]]', 'rate_limited'],
    ['[[fail:policy]]', 'content_policy'],
  ])('%s becomes %s', async (marker, kind) => {
    expect(await failure(chat.chat(ask(`${marker} hi`), conn()))).toMatchObject({ kind });
  });

  test('a vendor that hangs becomes timeout', async () => {
    expect(await failure(chat.chat(ask('[[fail:timeout]]'), conn({ timeoutMs: 200 })))).toMatchObject({ kind: 'timeout' });
  });
});

describe('xai images (against the sandbox)', () => {
  test('grok-2-image: model, prompt, n and b64_json only (xAI refuses size)', async () => {
    const started = await media.start(
      {
        category: 'image',
        slug: 'grok-2-image',
        upstreamModel: 'grok-2-image',
        prompt: 'a cat in a tree',
        size: '768x1344',
        quality: 'hd',
      },
      conn(),
    );
    expect(seen[0].path).toBe('/v1/images/generations');
    expect(bodyOf(seen[0])).toEqual({ model: 'grok-2-image', prompt: 'a cat in a tree', n: 1, response_format: 'b64_json' });
    if (started.state !== 'completed') throw new Error('expected completed');
    const file = started.output.files[0];
    expect(file.mime).toBe('image/jpeg');
    const meta = await sharp(file.data).metadata();
    expect(meta.format).toBe('jpeg');
  });

  test('a moderated image becomes content_policy', async () => {
    const err = await failure(
      media.start({ category: 'image', slug: 'grok-2-image', upstreamModel: 'grok-2-image', prompt: '[[fail:policy]] x' }, conn()),
    );
    expect(err).toMatchObject({ kind: 'content_policy', upstreamStatus: 400 });
  });

  test('xAI serves no speech', async () => {
    const err = await failure(media.start({ category: 'tts', slug: 'x', upstreamModel: 'x', prompt: 'x' }, conn()));
    expect(err.kind).toBe('bad_request');
  });
});

describe('xai adapter replaying recorded payloads', () => {
  const fixture = fixtureReader('xai');
  const stubbed = (name: string, status = 200) => stubConnection(xaiAdapter, replyWith(fixture(name), status), { apiKey: 'xai-test' }).conn;

  test('reasoning tokens reported beside completion tokens are billed as output', async () => {
    const result = await chat.chat(ask('Who are you?', 'grok-4'), stubbed('chat-completion-reasoning.json'));
    expect(result).toEqual({
      text: 'I am Grok, an AI assistant built by xAI...',
      usage: { promptTokens: 663, completionTokens: 50 + 124, cachedTokens: 654, reasoningTokens: 124 },
      finishReason: 'stop',
    });
  });

  test('grok-3-mini reasoning_content stays out of the answer', async () => {
    const result = await chat.chat(ask('Say a single word.', 'grok-3-mini'), stubbed('chat-completion-grok-3-mini.json'));
    expect(result.text).toBe('Hello');
    expect(result.usage).toEqual({ promptTokens: 12, completionTokens: 119, cachedTokens: 1, reasoningTokens: 118 });
    expect(result.reasoning?.[0]).toMatchObject({ type: 'text', provider: 'xai' });
  });

  test('an image sent as a data URI is decoded and typed by its bytes', async () => {
    const started = await media.start(
      { category: 'image', slug: 'grok-2-image', upstreamModel: 'grok-2-image', prompt: 'A cat in a tree' },
      stubbed('image-b64.json'),
    );
    if (started.state !== 'completed') throw new Error('expected completed');
    expect(started.output.files[0].mime).toBe('image/jpeg');
    expect((await sharp(started.output.files[0].data).metadata()).width).toBe(4);
  });

  test.each([
    ['error-incorrect-api-key.json', 'auth'],
    ['error-image-moderation.json', 'content_policy'],
  ])('%s (HTTP 400) becomes %s', async (name, kind) => {
    const err = await failure(
      media.start({ category: 'image', slug: 'grok-2-image', upstreamModel: 'grok-2-image', prompt: 'x' }, stubbed(name, 400)),
    );
    expect(err).toMatchObject({ kind, upstreamStatus: 400, message: JSON.parse(fixture(name)).error });
  });
});
