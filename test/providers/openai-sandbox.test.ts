import OpenAI from 'openai';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { startSandbox, SandboxServer } from '../../src/sandbox/server';
import { syntheticWav } from '../../src/sandbox/synthetic';

// The OpenAI fake is also what the /v1 tests and the benchmark hit: check its wire format directly,
// and with the official SDK as a client that knows the real protocol.

let sandbox: SandboxServer;
let base: string;
/** The fake's idea of today: the day of the catalog refresh, so models shut down later still answer here. */
const REFRESH_DAY = new Date('2026-11-27T12:00:00Z');
let today = REFRESH_DAY;

beforeAll(async () => {
  sandbox = await startSandbox({ openai: createOpenAiSandbox({ chunkDelayMs: 10, now: () => today }) });
  base = `${sandbox.mountUrl('openai')}/v1`;
});
afterAll(() => sandbox.close());
afterEach(() => {
  today = REFRESH_DAY;
});

interface StreamChunk {
  object: string;
  choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>;
  usage?: { completion_tokens: number } | null;
}

const sdk = () => new OpenAI({ apiKey: 'sk-sandbox', baseURL: base, maxRetries: 0 });

async function post(path: string, body: unknown, key = 'sk-sandbox'): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
}

describe('openai sandbox wire format', () => {
  test('a chat completion has the documented fields', async () => {
    const res = await post('/chat/completions', { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'ping' }] });
    expect(res.status).toBe(200);
    const json = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } };
    expect(json).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gpt-6-luna',
      choices: [{ index: 0, message: { role: 'assistant', content: expect.stringContaining('"ping"') }, finish_reason: 'stop' }],
    });
    const { prompt_tokens, completion_tokens, total_tokens } = json.usage;
    expect(total_tokens).toBe(prompt_tokens + completion_tokens);
  });

  test('a stream is SSE chunks, a usage chunk with empty choices, then [DONE], written over time', async () => {
    const started = Date.now();
    const res = await post('/chat/completions', {
      model: 'gpt-6-luna',
      messages: [{ role: 'user', content: 'stream please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const arrivals: number[] = [];
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      arrivals.push(Date.now() - started);
      text += Buffer.from(value).toString('utf8');
    }
    const frames = text.split('\n\n').filter(Boolean);
    expect(frames[frames.length - 1]).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.replace(/^data: /, '')) as StreamChunk);
    for (const chunk of chunks) expect(chunk.object).toBe('chat.completion.chunk');
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const usageChunk = chunks[chunks.length - 1];
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage?.completion_tokens).toBeGreaterThan(0);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
    expect(chunks[chunks.length - 2].choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    // Written one by one: the body arrives in many reads spread over time, not as one block.
    expect(arrivals.length).toBeGreaterThan(5);
    expect(arrivals[arrivals.length - 1] - arrivals[0]).toBeGreaterThanOrEqual(50);
  });

  test('without include_usage there is no usage chunk', async () => {
    const res = await post('/chat/completions', { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'x' }], stream: true });
    const text = await res.text();
    expect(text).not.toContain('"usage"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  test.each([
    ['', '[[fail:none]]', 401, null],
    ['invalid-key', 'hi', 401, 'invalid_api_key'],
    ['sk-sandbox', '[[fail:rate_limit]]', 429, 'rate_limit_exceeded'],
    ['sk-sandbox', '[[fail:overloaded]]', 503, null],
    ['sk-sandbox', '[[fail:server]]', 500, null],
  ])('key "%s" + "%s" -> %d {error:{message,type,param,code=%s}}', async (key, content, status, code) => {
    const res = await post('/chat/completions', { model: 'gpt-6-luna', messages: [{ role: 'user', content }] }, key);
    expect(res.status).toBe(status);
    const json = (await res.json()) as { error: Record<string, unknown> };
    expect(Object.keys(json.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(json.error.code).toBe(code);
    expect(typeof json.error.message).toBe('string');
  });

  test('an image prompt refused by the safety system is a 400 content_policy_violation', async () => {
    const res = await post('/images/generations', { model: 'dall-e-3', prompt: '[[fail:policy]] x', response_format: 'b64_json' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('content_policy_violation');
  });

  test('a model past its shutdown date on the deprecations page answers 404 model_not_found, on every endpoint', async () => {
    const gone = { error: { type: 'invalid_request_error', code: 'model_not_found' } };
    // Still served on the refresh day...
    expect((await post('/chat/completions', { model: 'gpt-5-mini', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    // ...and gone from the day after the last of these shutdowns (whisper-1, 2027-02-26).
    today = new Date('2027-02-26T00:00:00Z');
    const chat = await post('/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).toBe(404);
    expect(await chat.json()).toMatchObject(gone);
    expect((await post('/images/generations', { model: 'gpt-image-1-mini', prompt: 'otter' })).status).toBe(404);
    expect((await post('/audio/speech', { model: 'tts-1', input: 'hi', voice: 'alloy' })).status).toBe(404);
    const form = new FormData();
    form.set('model', 'whisper-1');
    form.set('file', new File([new Uint8Array(syntheticWav(1))], 'clip.wav', { type: 'audio/wav' }));
    const stt = await fetch(`${base}/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-sandbox' },
      body: form,
    });
    expect(stt.status).toBe(404);
    // The successors answer.
    expect((await post('/chat/completions', { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
  });

  test('unknown paths answer OpenAI-style 404s', async () => {
    const res = await post('/nothing/here', {});
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Invalid URL (POST /v1/nothing/here)');
  });
});

describe('openai sandbox through the official SDK', () => {
  test('chat.completions.create, plain and streamed', async () => {
    const client = sdk();
    const completion = await client.chat.completions.create({
      model: 'gpt-5.6-luna',
      messages: [{ role: 'user', content: 'Hello SDK' }],
      max_completion_tokens: 100,
    });
    expect(completion.choices[0].message.content).toContain('Hello SDK');

    const stream = await client.chat.completions.create({
      model: 'gpt-5.6-luna',
      messages: [{ role: 'user', content: 'Hello SDK' }],
      max_completion_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(completion.choices[0].message.content);
    expect(usage?.completion_tokens).toBe(completion.usage?.completion_tokens);
  });

  test('the SDK surfaces the fake errors with their status and code', async () => {
    const client = new OpenAI({ apiKey: 'invalid-key', baseURL: base, maxRetries: 0 });
    await expect(client.chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject(
      { status: 401, code: 'invalid_api_key' },
    );
  });

  test('images, speech and transcriptions', async () => {
    const client = sdk();
    const image = await client.images.generate({ model: 'gpt-image-2.6-sunburst', prompt: 'otter', size: '1024x1024' });
    expect(Buffer.from(image.data![0].b64_json!, 'base64').readUInt32BE(0)).toBe(0x89504e47);

    const speech = await client.audio.speech.create({ model: 'tts-1', input: 'hello', voice: 'alloy', response_format: 'wav' });
    expect(Buffer.from(await speech.arrayBuffer()).toString('ascii', 0, 4)).toBe('RIFF');

    const file = new File([new Uint8Array(syntheticWav(1))], 'clip.wav', { type: 'audio/wav' });
    const transcription = await client.audio.transcriptions.create({ model: 'whisper-1', file });
    expect(transcription.text).toContain('Sandbox transcription of clip.wav');
  });
});
