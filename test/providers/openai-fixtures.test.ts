import sharp from 'sharp';
import { openaiAdapter } from '../../src/core/providers/openai';
import { ChatStreamEvent } from '../../src/core/providers/types';
import { failure, fixtureReader, Reply, replyWith, replyWithSse, stubConnection } from '../support/vendor-sandbox';

// Replays payloads recorded from OpenAI's documentation through the adapter, so it is not tuned to our fake alone.

const fixture = fixtureReader('openai');
const stub = (reply: Reply) => stubConnection(openaiAdapter, reply, { apiKey: 'sk-test' });
const json = (name: string, status = 200) => replyWith(fixture(name), status);

const request = {
  upstreamModel: 'gpt-6.1-terra',
  messages: [{ role: 'user' as const, content: 'Hello!' }],
  maxTokens: 100,
};

describe('openai adapter replaying documented payloads', () => {
  test('chat completion example', async () => {
    const { conn, calls } = stub(json('chat-completion.json'));
    const result = await openaiAdapter.chat!.chat(request, conn);
    expect(calls[0].url).toBe('https://api.openai.com/v1/chat/completions');
    expect(new Headers(calls[0].init?.headers).get('authorization')).toBe('Bearer sk-test');
    expect(result).toEqual({
      text: 'Hello! How can I assist you today?',
      usage: { promptTokens: 19, completionTokens: 10 },
      finishReason: 'stop',
    });
  });

  test('streaming example with include_usage, delivered in 7-byte pieces', async () => {
    const { conn } = stub(replyWithSse(fixture('chat-stream.txt')));
    const events: ChatStreamEvent[] = [];
    for await (const event of openaiAdapter.chat!.chatStream(request, conn)) events.push(event);
    expect(events).toEqual([
      { type: 'delta', text: 'Hello' },
      { type: 'delta', text: '!' },
      { type: 'delta', text: ' How can I assist you today?' },
      { type: 'usage', usage: { promptTokens: 19, completionTokens: 10 } },
      { type: 'finish', finishReason: 'stop' },
    ]);
  });

  test('a stream that stops without [DONE] or a finish reason is an upstream failure', async () => {
    const cut = fixture('chat-stream.txt').split('\n\n').slice(0, 3).join('\n\n') + '\n\n';
    const { conn } = stub(replyWithSse(cut));
    const run = (async () => {
      for await (const _event of openaiAdapter.chat!.chatStream(request, conn)) void _event;
    })();
    expect(await failure(run)).toMatchObject({ kind: 'upstream' });
  });

  test('gpt-image-2.6-sunburst base64 example', async () => {
    const { conn, calls } = stub(json('image-gpt-image-1.json'));
    const started = await openaiAdapter.media!.start(
      { category: 'image', slug: 'gpt-image-2.6-sunburst', upstreamModel: 'gpt-image-2.6-sunburst', prompt: 'otter', size: '1024x1024' },
      conn,
    );
    expect(calls[0].url).toBe('https://api.openai.com/v1/images/generations');
    if (started.state !== 'completed') throw new Error('expected completed');
    expect(started.output.files[0].mime).toBe('image/png');
    expect((await sharp(started.output.files[0].data).metadata()).width).toBe(4);
  });

  test('an image handed out as a URL is downloaded without the API key', async () => {
    const png = Buffer.from(JSON.parse(fixture('image-gpt-image-1.json')).data[0].b64_json, 'base64');
    const { conn, calls } = stub((call) =>
      call.url.includes('blob.core.windows.net')
        ? new Response(new Uint8Array(png), { headers: { 'content-type': 'image/png' } })
        : json('image-dall-e-url.json')(),
    );
    const started = await openaiAdapter.media!.start(
      { category: 'image', slug: 'dall-e-3', upstreamModel: 'dall-e-3', prompt: 'otter' },
      conn,
    );
    if (started.state !== 'completed') throw new Error('expected completed');
    expect(calls).toHaveLength(2);
    expect(new Headers(calls[1].init?.headers).get('authorization')).toBeNull();
    expect(started.output.files[0].data.equals(png)).toBe(true);
  });

  test.each([
    ['error-invalid-api-key.json', 401, 'auth'],
    ['error-rate-limit.json', 429, 'rate_limited'],
    ['error-overloaded.json', 503, 'overloaded'],
    ['error-content-policy.json', 400, 'content_policy'],
    ['error-unsupported-parameter.json', 400, 'bad_request'],
  ])('%s (HTTP %d) becomes %s', async (name, status, kind) => {
    const { conn } = stub(json(name, status));
    const err = await failure(openaiAdapter.chat!.chat(request, conn));
    expect(err).toMatchObject({ kind, upstreamStatus: status, message: JSON.parse(fixture(name)).error.message });
  });

  test('transcription examples: token usage and duration usage', async () => {
    const audio = { data: Buffer.from('RIFF....WAVE'), mime: 'audio/wav' };
    const tokens = stub(json('transcription-gpt-4o.json'));
    const a = await openaiAdapter.media!.start(
      { category: 'stt', slug: 'gpt-4o-transcribe', upstreamModel: 'gpt-4o-transcribe', audio },
      tokens.conn,
    );
    expect(tokens.calls[0].init?.body).toBeInstanceOf(FormData);
    const duration = stub(json('transcription-whisper.json'));
    const b = await openaiAdapter.media!.start({ category: 'stt', slug: 'whisper-1', upstreamModel: 'whisper-1', audio }, duration.conn);
    if (a.state !== 'completed' || b.state !== 'completed') throw new Error('expected completed');
    expect(a.output.text).toMatch(/^Imagine the wildest idea/);
    expect(a.output.usage).toEqual({ input_tokens: 14, output_tokens: 45 });
    expect(b.output.durationSeconds).toBe(9);
  });
});
