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

const req: ChatRequest = { upstreamModel: 'gemini-3.5-flash', messages: [{ role: 'user', content: 'Explain AI' }], maxTokens: 1024 };
const headerOf = (call: StubCall, name: string) => (call.init.headers as Record<string, string> | undefined)?.[name];

describe('gemini text', () => {
  test('generateContent answer → text, stop, usage counting thinking tokens as output', async () => {
    const { conn, calls } = stub(json(200, fixture('generate-content.json')));
    const result = await chat.chat(req, conn);
    expect(result).toEqual({
      text: 'AI learns patterns from data to make predictions or decisions without being explicitly programmed.',
      finishReason: 'stop',
      usage: { promptTokens: 8, completionTokens: 17 + 627, reasoningTokens: 627 },
    });
    expect(calls[0].url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-3.5-flash:generateContent');
    expect(headerOf(calls[0], 'x-goog-api-key')).toBe('AIza-test');
    expect(calls[0].url).not.toContain('key=');
  });

  test('MAX_TOKENS without a text part → empty text, length', async () => {
    const result = await chat.chat(req, stub(json(200, fixture('max-tokens.json'))).conn);
    expect(result).toEqual({ text: '', finishReason: 'length', usage: { promptTokens: 12, completionTokens: 49, reasoningTokens: 49 } });
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
      { type: 'usage', usage: { promptTokens: 399, completionTokens: 7 + 34, reasoningTokens: 34 } },
      { type: 'finish', finishReason: 'stop' },
    ]);
    expect(calls[0].url).toBe(`${BASE}/models/gemini-3.5-flash:streamGenerateContent?alt=sse`);
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
    slug: 'gemini-3.1-flash-image',
    upstreamModel: 'gemini-3.1-flash-image',
    prompt: 'nano banana',
    size: '16:9',
  };
  test('flash image answer → the inlineData part as bytes; request asks for IMAGE with the aspect ratio', async () => {
    const { conn, calls } = stub(json(200, fixture('flash-image.json')));
    const start = await media.start(flash, conn);
    const expected = (
      JSON.parse(fixture('flash-image.json')) as { candidates: { content: { parts: { inlineData?: { data: string } }[] } }[] }
    ).candidates[0].content.parts[1].inlineData!.data;
    expect(start).toEqual({ state: 'completed', output: { files: [{ data: Buffer.from(expected, 'base64'), mime: 'image/png' }] } });
    expect(calls[0].url).toBe(`${BASE}/models/gemini-3.1-flash-image:generateContent`);
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
});

describe('gemini tts', () => {
  const speak: MediaRequest = {
    category: 'tts',
    slug: 'gemini-3.8-flash-tts',
    upstreamModel: 'gemini-3.8-flash-tts',
    prompt: 'Hello there',
  };

  test('audio/L16 inline data → a 24 kHz mono WAV around the same PCM; the body asks for AUDIO and one voice', async () => {
    const { conn, calls } = stub(json(200, fixture('tts.json')));
    const start = await media.start({ ...speak, voiceId: 'Charon' }, conn);
    expect(calls[0].url).toBe(`${BASE}/models/gemini-3.8-flash-tts:generateContent`);
    expect(JSON.parse(calls[0].init.body as string)).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Charon' } } } },
    });
    if (start.state !== 'completed') throw new Error('expected completed');
    const pcm = Buffer.from(
      (JSON.parse(fixture('tts.json')) as { candidates: { content: { parts: { inlineData: { data: string } }[] } }[] }).candidates[0]
        .content.parts[0].inlineData.data,
      'base64',
    );
    const [file] = start.output.files;
    expect(file.mime).toBe('audio/wav');
    expect(file.data.readUInt32LE(24)).toBe(24000);
    expect(file.data.readUInt16LE(22)).toBe(1);
    expect(file.data.subarray(44).equals(pcm)).toBe(true);
  });

  test('a blocked prompt (promptFeedback, no candidates) → content_policy; an answer without audio → upstream', async () => {
    expect((await failure(media.start(speak, stub(json(200, fixture('blocked-prompt.json'))).conn))).kind).toBe('content_policy');
    expect((await failure(media.start(speak, stub(json(200, fixture('generate-content.json'))).conn))).kind).toBe('upstream');
  });
});

describe('gemini omni interactions', () => {
  const omni: MediaRequest = {
    category: 'video',
    slug: 'gemini-omni-1.1-flash',
    upstreamModel: 'gemini-omni-1.1-flash',
    prompt: 'a cat',
    size: '16:9',
  };
  const mp4 = Buffer.from('000000206674797069736f6d', 'hex');
  const ID = (JSON.parse(fixture('omni-start.json')) as { id: string }).id;

  test('create answer (background, in_progress) → pending with the interaction id as job id', async () => {
    const { conn, calls } = stub(json(200, fixture('omni-start.json')));
    const start = await media.start(omni, conn);
    expect(start).toEqual({ state: 'pending', upstreamJobId: ID, etaSeconds: expect.any(Number) });
    expect(calls[0].url).toBe(`${BASE}/interactions`);
    expect(headerOf(calls[0], 'x-goog-api-key')).toBe('AIza-test');
    expect(JSON.parse(calls[0].init.body as string)).toEqual({
      model: 'gemini-omni-1.1-flash',
      input: 'a cat',
      response_format: { type: 'video', duration: '8s', delivery: 'uri', aspect_ratio: '16:9' },
      background: true,
    });
  });

  test('in_progress → pending; completed → the model_output video downloaded from its URI with the API key', async () => {
    expect(await media.poll(ID, omni, stub(json(200, fixture('omni-start.json'))).conn)).toEqual({ state: 'pending' });

    const { conn, calls } = stub(({ url }) =>
      url.includes('/files/')
        ? new Response(mp4, { status: 200, headers: { 'content-type': 'video/mp4' } })
        : json(200, fixture('omni-done.json'))(),
    );
    const done = await media.poll(ID, omni, conn);
    expect(done).toEqual({ state: 'completed', output: { files: [{ data: mp4, mime: 'video/mp4' }], durationSeconds: 8 } });
    expect(calls.map((c) => c.url)).toEqual([
      `${BASE}/interactions/${ID}`,
      'https://generativelanguage.googleapis.com/v1beta/files/omni8x2k4qv1tz0:download?alt=media',
    ]);
    expect(headerOf(calls[1], 'x-goog-api-key')).toBe('AIza-test');
  });

  test('a video delivered inline (base64 data) needs no download', async () => {
    const { conn, calls } = stub(json(200, fixture('omni-done-inline.json')));
    const done = await media.poll(ID, omni, conn);
    expect(done).toEqual({ state: 'completed', output: { files: [{ data: mp4, mime: 'video/mp4' }], durationSeconds: 8 } });
    expect(calls).toHaveLength(1);
  });

  test('a video URI on another origin is downloaded without our key', async () => {
    const body = fixture('omni-done.json').replace(
      'https://generativelanguage.googleapis.com/v1beta/files',
      'https://storage.example.com/v',
    );
    const { conn, calls } = stub(({ url }) =>
      url.includes('storage.example.com') ? new Response(mp4, { status: 200 }) : json(200, body)(),
    );
    const done = await media.poll(ID, omni, conn);
    expect(done.state).toBe('completed');
    expect(headerOf(calls[1], 'x-goog-api-key')).toBeUndefined();
  });

  test('failed with a safety step error → content_policy; failed with errors[] → upstream; completed without a video → upstream', async () => {
    const filtered = await media.poll(ID, omni, stub(json(200, fixture('omni-filtered.json'))).conn);
    expect(filtered.state === 'failed' && filtered.error.kind).toBe('content_policy');
    const failed = await media.poll(ID, omni, stub(json(200, fixture('omni-failed.json'))).conn);
    expect(failed.state === 'failed' && failed.error.kind).toBe('upstream');
    const empty = await media.poll(ID, omni, stub(json(200, fixture('omni-completed-empty.json'))).conn);
    expect(empty.state === 'failed' && empty.error.message).toMatch(/without a video/);
  });

  test('a retryable HTTP failure while polling is thrown (poll again later); a refused key fails the job', async () => {
    expect((await failure(media.poll(ID, omni, stub(json(503, fixture('error-overloaded.json'))).conn))).kind).toBe('overloaded');
    const refused = await media.poll(ID, omni, stub(json(400, fixture('error-api-key-invalid.json'))).conn);
    expect(refused.state === 'failed' && refused.error.kind).toBe('auth');
  });
});
