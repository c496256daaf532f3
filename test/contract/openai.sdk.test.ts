import OpenAI, { toFile } from 'openai';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { syntheticWav } from '../../src/sandbox/synthetic';
import { useFake } from './sandbox';

// The official `openai` SDK as the client of our OpenAI fake, for every call the openai adapter makes.

const fake = useFake('openai', createOpenAiSandbox({ chunkDelayMs: 0 }));
const client = (apiKey = 'sk-contract') => new OpenAI({ apiKey, baseURL: `${fake.mount()}/v1`, maxRetries: 0 });

test('chat completion: parsed by the SDK, with content, finish_reason and usage', async () => {
  const r = await client().chat.completions.create({
    model: 'gpt-6-luna',
    messages: [{ role: 'user', content: 'Say hi' }],
    max_completion_tokens: 50,
  });
  expect(r.object).toBe('chat.completion');
  expect(typeof r.choices[0].message.content).toBe('string');
  expect(r.choices[0].finish_reason).toMatch(/stop|length/);
  expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens);
});

test('streamed chat completion: chunks, a finish reason and the usage chunk (stream_options.include_usage)', async () => {
  const stream = await client().chat.completions.create({
    model: 'gpt-6.1-terra',
    messages: [{ role: 'user', content: 'Count to three' }],
    max_completion_tokens: 100,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    expect(chunk.object).toBe('chat.completion.chunk');
    text += chunk.choices[0]?.delta?.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
    usage = chunk.usage ?? usage;
  }
  expect(text.length).toBeGreaterThan(0);
  expect(finish).toBe('stop');
  expect(usage!.completion_tokens).toBeGreaterThan(0);
});

test('images: gpt-image models answer b64_json with usage', async () => {
  const r = await client().images.generate({
    model: 'gpt-image-2.6-flare',
    prompt: 'a red fox',
    size: '1536x1024',
    quality: 'medium',
    n: 1,
  });
  const png = Buffer.from(r.data![0].b64_json!, 'base64');
  expect(png.subarray(1, 4).toString()).toBe('PNG');
});

test('speech: audio bytes of the requested format', async () => {
  const res = await client().audio.speech.create({
    model: 'gemini-3.8-flash-tts',
    voice: 'alloy',
    input: 'Hello there',
    response_format: 'wav',
  });
  expect(res.headers.get('content-type')).toMatch(/audio\/wav/);
  const data = Buffer.from(await res.arrayBuffer());
  expect(data.subarray(0, 4).toString()).toBe('RIFF');
});

test('transcription: multipart upload answered as json text', async () => {
  const file = await toFile(syntheticWav(2), 'meeting.wav', { type: 'audio/wav' });
  const r = await client().audio.transcriptions.create({ model: 'whisper-1', file, response_format: 'json', language: 'en' });
  expect(typeof r.text).toBe('string');
  expect(r.text.length).toBeGreaterThan(0);
});

test('transcription as verbose_json: timed segments; translation into English by the transcription models', async () => {
  const file = await toFile(syntheticWav(3), 'talk.wav', { type: 'audio/wav' });
  const verbose = await client().audio.transcriptions.create({ model: 'whisper-1', file, response_format: 'verbose_json' });
  expect(verbose.duration).toBeCloseTo(3, 0);
  expect(verbose.segments!.length).toBeGreaterThan(0);
  expect(verbose.segments!.at(-1)!.end).toBeCloseTo(verbose.duration, 1);
  const translated = await client().audio.translations.create({ model: 'whisper-1', file, response_format: 'verbose_json' });
  expect(translated).toMatchObject({ task: 'translate', language: 'english', text: expect.stringContaining('English') });
  const successor = await client().audio.translations.create({ model: 'gpt-transcribe', file });
  expect(successor.text).toMatch(/^Sandbox translation/);
  const refused = await client()
    .audio.translations.create({ model: 'gpt-4o-transcribe-diarize', file })
    .catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
  expect((refused as InstanceType<typeof OpenAI.APIError>).param).toBe('model');
});

test('error answers map to the SDK error classes with the documented type and code', async () => {
  const auth = await client('invalid-key')
    .chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e);
  expect(auth).toBeInstanceOf(OpenAI.AuthenticationError);
  expect((auth as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');

  const quota = await client()
    .chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: '[[fail:balance]]' }] })
    .catch((e: unknown) => e);
  expect(quota).toBeInstanceOf(OpenAI.RateLimitError);
  expect(quota).toMatchObject({ status: 429, code: 'insufficient_quota', type: 'insufficient_quota' });

  const limited = await client()
    .chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: '[[fail:rate_limit]]' }] })
    .catch((e: unknown) => e);
  expect(limited).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });

  const busy = await client()
    .chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: '[[fail:overloaded]]' }] })
    .catch((e: unknown) => e);
  expect(busy).toBeInstanceOf(OpenAI.InternalServerError);
  expect((busy as InstanceType<typeof OpenAI.APIError>).status).toBe(503);

  const policy = await client()
    .images.generate({ model: 'gpt-image-2.6-sunburst', prompt: 'x [[fail:policy]]' })
    .catch((e: unknown) => e);
  expect(policy).toBeInstanceOf(OpenAI.BadRequestError);
});
