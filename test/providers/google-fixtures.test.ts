import { googleAdapter } from '../../src/core/providers/google';
import { ChatRequest, ChatStreamEvent, MediaRequest } from '../../src/core/providers/types';
import { collect, failure, fixtureReader, Reply, replyWith, replyWithSse, StubCall, stubConnection } from '../support/vendor-sandbox';

// Replays Gemini API payloads in their documented shapes through a fetch stub (no sandbox involved).

const fixture = fixtureReader('google');
const chat = googleAdapter.chat!;
const media = googleAdapter.media!;
const BASE = googleAdapter.defaultBaseUrl;

const stub = (reply: Reply) => stubConnection(googleAdapter, reply, { apiKey: 'AIza-test' });
const json = (status: number, body: string) => replyWith(body, status, 'application/json; charset=UTF-8');
const sse = (body: string) => replyWithSse(body, 11);

const req: ChatRequest = { upstreamModel: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Explain AI' }], maxTokens: 1024 };
const headerOf = (call: StubCall, name: string) => (call.init.headers as Record<string, string> | undefined)?.[name];

describe('gemini text', () => {
  test('generateContent answer → text, stop, usage counting thinking tokens as output', async () => {
    const { conn, calls } = stub(json(200, fixture('generate-content.json')));
    const result = await chat.chat(req, conn);
    expect(result).toEqual({
      text: 'AI learns patterns from data to make predictions or decisions without being explicitly programmed.',
      finishReason: 'stop',
      usage: { promptTokens: 8, completionTokens: 17 + 627 },
    });
    expect(calls[0].url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent');
    expect(headerOf(calls[0], 'x-goog-api-key')).toBe('AIza-test');
    expect(calls[0].url).not.toContain('key=');
  });

  test('MAX_TOKENS without a text part → empty text, length', async () => {
    const result = await chat.chat(req, stub(json(200, fixture('max-tokens.json'))).conn);
    expect(result).toEqual({ text: '', finishReason: 'length', usage: { promptTokens: 12, completionTokens: 49 } });
  });

  test('a prompt blocked by safety (200 with promptFeedback.blockReason) → content_policy', async () => {
    const err = await failure(chat.chat(req, stub(json(200, fixture('blocked-prompt.json'))).conn));
    expect(err.kind).toBe('content_policy');
    expect(err.message).toContain('SAFETY');
  });

  test('SSE transcript (CRLF framing, no sentinel) → deltas, cumulative usage of the last chunk, finish', async () => {
    const { conn, calls } = stub(sse(fixture('stream.txt')));
    const events = await collect(chat.chatStream(req, conn));
    expect(events).toEqual([
      { type: 'delta', text: 'Certainly' },
      { type: 'delta', text: '! Here is a short' },
      { type: 'delta', text: ' answer.' },
      { type: 'usage', usage: { promptTokens: 399, completionTokens: 7 + 34 } },
      { type: 'finish', finishReason: 'stop' },
    ]);
    expect(calls[0].url).toBe(`${BASE}/models/gemini-2.5-flash:streamGenerateContent?alt=sse`);
  });

  test('a stream that stops before the chunk with finishReason is an upstream failure', async () => {
    const cut = fixture('stream.txt').split('\r\n\r\n').slice(0, 2).join('\r\n\r\n') + '\r\n\r\n';
    const err = await failure(collect(chat.chatStream(req, stub(sse(cut)).conn)));
    expect(err.kind).toBe('upstream');
  });

  test('an error object arriving as a stream chunk is classified by its status', async () => {
    const first = fixture('stream.txt').split('\r\n\r\n')[0];
    const body = `${first}\r\n\r\ndata: ${JSON.stringify(JSON.parse(fixture('error-overloaded.json')))}\r\n\r\n`;
    const seen: ChatStreamEvent[] = [];
    const err = await failure(
      (async () => {
        for await (const ev of chat.chatStream(req, stub(sse(body)).conn)) seen.push(ev);
      })(),
    );
    expect(seen).toEqual([{ type: 'delta', text: 'Certainly' }]);
    expect(err.kind).toBe('overloaded');
  });

  test.each([
    ['error-overloaded.json', 503, 'overloaded'],
    ['error-rate-limit.json', 429, 'rate_limited'],
    ['error-api-key-invalid.json', 400, 'auth'],
    ['error-unregistered.json', 403, 'auth'],
    ['error-bad-request.json', 400, 'bad_request'],
    ['error-deadline.json', 504, 'timeout'],
  ])('error body %s (HTTP %i) → %s, for chat and stream', async (file, status, kind) => {
    const err = await failure(chat.chat(req, stub(json(status, fixture(file))).conn));
    expect(err.kind).toBe(kind);
    expect(err.upstreamStatus).toBe(status);
    expect(err.message).toBe((JSON.parse(fixture(file)) as { error: { message: string } }).error.message);
    expect((await failure(collect(chat.chatStream(req, stub(json(status, fixture(file))).conn)))).kind).toBe(kind);
  });
});

describe('images', () => {
  const flash: MediaRequest = {
    category: 'image',
    slug: 'gemini-2.5-flash-image',
    upstreamModel: 'gemini-2.5-flash-image',
    prompt: 'nano banana',
    size: '16:9',
  };
  const imagen: MediaRequest = {
    category: 'image',
    slug: 'imagen-4',
    upstreamModel: 'imagen-4.0-generate-001',
    prompt: 'robot',
    size: '9:16',
  };

  test('flash image answer → the inlineData part as bytes; request asks for IMAGE with the aspect ratio', async () => {
    const { conn, calls } = stub(json(200, fixture('flash-image.json')));
    const start = await media.start(flash, conn);
    const expected = (
      JSON.parse(fixture('flash-image.json')) as { candidates: { content: { parts: { inlineData?: { data: string } }[] } }[] }
    ).candidates[0].content.parts[1].inlineData!.data;
    expect(start).toEqual({ state: 'completed', output: { files: [{ data: Buffer.from(expected, 'base64'), mime: 'image/png' }] } });
    expect(calls[0].url).toBe(`${BASE}/models/gemini-2.5-flash-image:generateContent`);
    const body = JSON.parse(calls[0].init.body as string) as { generationConfig: Record<string, unknown> };
    expect(body.generationConfig).toEqual({ responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '16:9' } });
  });

  test('flash image IMAGE_SAFETY finish → content_policy', async () => {
    expect((await failure(media.start(flash, stub(json(200, fixture('flash-image-safety.json'))).conn))).kind).toBe('content_policy');
  });

  test('flash image answer with text only and STOP → upstream, quoting the text', async () => {
    const body = JSON.parse(fixture('flash-image.json')) as { candidates: { content: { parts: unknown[] } }[] };
    body.candidates[0].content.parts = body.candidates[0].content.parts.slice(0, 1);
    const err = await failure(media.start(flash, stub(json(200, JSON.stringify(body))).conn));
    expect(err.kind).toBe('upstream');
    expect(err.message).toContain('nano banana dish');
  });

  test('imagen predict answer → bytes of predictions[0]', async () => {
    const { conn, calls } = stub(json(200, fixture('imagen-predict.json')));
    const start = await media.start(imagen, conn);
    const b64 = (JSON.parse(fixture('imagen-predict.json')) as { predictions: { bytesBase64Encoded: string }[] }).predictions[0]
      .bytesBase64Encoded;
    expect(start).toEqual({ state: 'completed', output: { files: [{ data: Buffer.from(b64, 'base64'), mime: 'image/png' }] } });
    expect(calls[0].url).toBe(`${BASE}/models/imagen-4.0-generate-001:predict`);
    expect(JSON.parse(calls[0].init.body as string)).toEqual({
      instances: [{ prompt: 'robot' }],
      parameters: { sampleCount: 1, aspectRatio: '9:16' },
    });
  });

  test('imagen output filtered (raiFilteredReason) and prompt refused (400) → content_policy', async () => {
    const filtered = await failure(media.start(imagen, stub(json(200, fixture('imagen-filtered.json'))).conn));
    expect(filtered.kind).toBe('content_policy');
    expect(filtered.message).toContain('safety filter threshold filtered out');
    const refused = await failure(media.start(imagen, stub(json(400, fixture('imagen-prompt-blocked.json'))).conn));
    expect(refused.kind).toBe('content_policy');
  });
});

describe('veo operations', () => {
  const veo: MediaRequest = { category: 'video', slug: 'veo-3', upstreamModel: 'veo-3.0-generate-001', prompt: 'a cat', size: '16:9' };
  const mp4 = Buffer.from('000000206674797069736f6d', 'hex');
  const OP = 'models/veo-3.0-generate-001/operations/zcyolh5ql9w4';

  test('submit answer → pending with the operation name as job id', async () => {
    const { conn, calls } = stub(json(200, fixture('veo-start.json')));
    const start = await media.start(veo, conn);
    expect(start).toEqual({ state: 'pending', upstreamJobId: OP, etaSeconds: expect.any(Number) });
    expect(calls[0].url).toBe(`${BASE}/models/veo-3.0-generate-001:predictLongRunning`);
  });

  test('running operation (no `done`) → pending; done → video downloaded from the URI with the API key', async () => {
    expect(await media.poll(OP, veo, stub(json(200, fixture('veo-running.json'))).conn)).toEqual({ state: 'pending' });

    const { conn, calls } = stub(({ url }) =>
      url.includes('/files/')
        ? new Response(mp4, { status: 200, headers: { 'content-type': 'video/mp4' } })
        : json(200, fixture('veo-done.json'))(),
    );
    const done = await media.poll(OP, veo, conn);
    expect(done).toEqual({ state: 'completed', output: { files: [{ data: mp4, mime: 'video/mp4' }], durationSeconds: 8 } });
    expect(calls.map((c) => c.url)).toEqual([
      `${BASE}/${OP}`,
      'https://generativelanguage.googleapis.com/v1beta/files/3wixbs2zd1zs:download?alt=media',
    ]);
    expect(headerOf(calls[1], 'x-goog-api-key')).toBe('AIza-test');
  });

  test('a video URI on another origin is downloaded without our key', async () => {
    const body = fixture('veo-done.json').replace(
      'https://generativelanguage.googleapis.com/v1beta/files',
      'https://storage.example.com/v',
    );
    const { conn, calls } = stub(({ url }) =>
      url.includes('storage.example.com') ? new Response(mp4, { status: 200 }) : json(200, body)(),
    );
    const done = await media.poll(OP, veo, conn);
    expect(done.state).toBe('completed');
    expect(headerOf(calls[1], 'x-goog-api-key')).toBeUndefined();
  });

  test('RAI-filtered operation → failed content_policy; operation error → failed, kind from the rpc code', async () => {
    const filtered = await media.poll(OP, veo, stub(json(200, fixture('veo-filtered.json'))).conn);
    expect(filtered.state === 'failed' && filtered.error.kind).toBe('content_policy');
    const failed = await media.poll(OP, veo, stub(json(200, fixture('veo-error.json'))).conn);
    expect(failed.state === 'failed' && failed.error.kind).toBe('upstream');
    const exhausted = fixture('veo-error.json').replace('"code": 13', '"code": 8');
    const busy = await media.poll(OP, veo, stub(json(200, exhausted)).conn);
    expect(busy.state === 'failed' && busy.error.kind).toBe('rate_limited');
  });

  test('a retryable HTTP failure while polling is thrown (poll again later); a refused key fails the job', async () => {
    expect((await failure(media.poll(OP, veo, stub(json(503, fixture('error-overloaded.json'))).conn))).kind).toBe('overloaded');
    const refused = await media.poll(OP, veo, stub(json(400, fixture('error-api-key-invalid.json'))).conn);
    expect(refused.state === 'failed' && refused.error.kind).toBe('auth');
  });
});
