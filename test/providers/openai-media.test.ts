import sharp from 'sharp';
import { openaiAdapter } from '../../src/core/providers/openai';
import { nearestSize } from '../../src/core/providers/openai/sizes';
import { MediaOutput, MediaRequest, ProviderConnection } from '../../src/core/providers/types';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { syntheticWav } from '../../src/sandbox/synthetic';
import { bodyOf, failure, useVendorSandbox } from '../support/vendor-sandbox';

const media = openaiAdapter.media!;

// The speech tests use tts-1 and gpt-4o-mini-tts, which OpenAI shuts down on 2027-01-06 (the catalog serves their
// slugs with Gemini TTS now): the fake is pinned to the day of the catalog refresh so the adapter path stays tested.
const openai = useVendorSandbox(openaiAdapter, createOpenAiSandbox({ chunkDelayMs: 0, now: () => new Date('2026-11-27T12:00:00Z') }));
const seen = openai.received;
const conn = (overrides: Partial<ProviderConnection> = {}) => openai.conn({ timeoutMs: 10000, ...overrides });

async function run(req: Partial<MediaRequest> & Pick<MediaRequest, 'category' | 'upstreamModel'>): Promise<MediaOutput> {
  const started = await media.start({ slug: req.upstreamModel, ...req }, conn());
  if (started.state !== 'completed') throw new Error('openai media must complete synchronously');
  return started.output;
}

describe('openai images', () => {
  test('dall-e-3: size, quality, style and b64_json are sent as documented', async () => {
    const output = await run({
      category: 'image',
      upstreamModel: 'dall-e-3',
      prompt: 'a lighthouse at dusk',
      size: '1792x1024',
      quality: 'hd',
      style: 'natural',
    });
    expect(seen[0].path).toBe('/v1/images/generations');
    expect(seen[0].headers.authorization).toBe('Bearer test-key');
    expect(bodyOf(seen[0])).toEqual({
      model: 'dall-e-3',
      prompt: 'a lighthouse at dusk',
      n: 1,
      size: '1792x1024',
      quality: 'hd',
      style: 'natural',
      response_format: 'b64_json',
    });
    expect(output.files).toHaveLength(1);
    expect(output.files[0].mime).toBe('image/png');
    const meta = await sharp(output.files[0].data).metadata();
    expect([meta.width, meta.height]).toEqual([1792, 1024]);
  });

  test('dall-e-3: an unsupported size goes as the nearest supported shape', async () => {
    await run({ category: 'image', upstreamModel: 'dall-e-3', prompt: 'tall tower', size: '768x1344' });
    expect(bodyOf(seen[0])).toMatchObject({ size: '1024x1792', quality: 'standard' });
  });

  test('gpt-image-2.6-sunburst: quality maps to high/medium, size to the nearest, no response_format or style', async () => {
    const output = await run({
      category: 'image',
      upstreamModel: 'gpt-image-2.6-sunburst',
      prompt: 'a portrait of a cat',
      size: '768x1344',
      quality: 'hd',
      style: 'vivid',
    });
    const body = bodyOf(seen[0]);
    expect(body).toEqual({ model: 'gpt-image-2.6-sunburst', prompt: 'a portrait of a cat', n: 1, size: '1024x1536', quality: 'high' });
    const meta = await sharp(output.files[0].data).metadata();
    expect([meta.width, meta.height]).toEqual([1024, 1536]);

    await run({ category: 'image', upstreamModel: 'gpt-image-2.6-sunburst', prompt: 'x', size: '1344x768', quality: 'standard' });
    expect(bodyOf(seen[1])).toMatchObject({ size: '1536x1024', quality: 'medium' });
  });

  test.each(['dall-e-3', 'gpt-image-2.6-sunburst'])('%s: a safety refusal becomes content_policy', async (model) => {
    const err = await failure(run({ category: 'image', upstreamModel: model, prompt: '[[fail:policy]] forbidden' }));
    expect(err).toMatchObject({ kind: 'content_policy', upstreamStatus: 400 });
  });

  test('an overloaded image endpoint (429) becomes rate_limited', async () => {
    const err = await failure(run({ category: 'image', upstreamModel: 'dall-e-3', prompt: '[[fail:rate_limit]] x' }));
    expect(err).toMatchObject({ kind: 'rate_limited', upstreamStatus: 429 });
  });
});

describe('nearestSize', () => {
  const gptImage = ['1024x1024', '1536x1024', '1024x1536'];
  test.each([
    ['1024x1024', '1024x1024'],
    ['16:9', '1536x1024'],
    ['9:16', '1024x1536'],
    ['1:1', '1024x1024'],
    ['2:3', '1024x1536'],
    ['1344x768', '1536x1024'],
    [undefined, '1024x1024'],
    ['nonsense', '1024x1024'],
  ])('%s -> %s', (requested, expected) => {
    expect(nearestSize(requested, gptImage)).toBe(expected);
  });
});

describe('openai speech', () => {
  test('sends model, input, voice, response_format and speed; returns the audio bytes', async () => {
    const output = await run({
      category: 'tts',
      upstreamModel: 'tts-1',
      prompt: 'Hello from the sandbox speaker.',
      voiceId: 'nova',
      audioFormat: 'wav',
      speed: 1.25,
    });
    expect(seen[0].path).toBe('/v1/audio/speech');
    expect(bodyOf(seen[0])).toEqual({
      model: 'tts-1',
      input: 'Hello from the sandbox speaker.',
      voice: 'nova',
      response_format: 'wav',
      speed: 1.25,
    });
    expect(output.files[0].mime).toBe('audio/wav');
    expect(output.files[0].data.toString('ascii', 0, 4)).toBe('RIFF');
    expect(output.usage).toEqual({ characters: 'Hello from the sandbox speaker.'.length });
  });

  test('defaults to voice alloy and mp3', async () => {
    const output = await run({ category: 'tts', upstreamModel: 'gpt-4o-mini-tts', prompt: 'Short.' });
    expect(bodyOf(seen[0])).toEqual({ model: 'gpt-4o-mini-tts', input: 'Short.', voice: 'alloy', response_format: 'mp3' });
    expect(output.files[0].mime).toBe('audio/mpeg');
    expect([output.files[0].data[0], output.files[0].data[1]]).toEqual([0xff, 0xfb]);
  });

  test('an unsupported format is refused before any request', async () => {
    const err = await failure(run({ category: 'tts', upstreamModel: 'tts-1', prompt: 'x', audioFormat: 'ogg' }));
    expect(err.kind).toBe('bad_request');
    expect(seen).toHaveLength(0);
  });

  test('an unknown voice is refused by the vendor as bad_request', async () => {
    const err = await failure(run({ category: 'tts', upstreamModel: 'tts-1', prompt: 'x', voiceId: 'bob' }));
    expect(err).toMatchObject({ kind: 'bad_request', upstreamStatus: 400 });
    expect(err.message).toMatch(/Invalid value: 'bob'/);
  });
});

describe('openai transcriptions', () => {
  const wav = syntheticWav(2);

  test('uploads a multipart form with file, model, language and response_format json', async () => {
    const output = await run({
      category: 'stt',
      upstreamModel: 'whisper-1',
      audio: { data: wav, mime: 'audio/wav' },
      language: 'en',
    });
    expect(seen[0].path).toBe('/v1/audio/transcriptions');
    expect(seen[0].headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Request('http://x', {
      method: 'POST',
      headers: { 'content-type': String(seen[0].headers['content-type']) },
      body: new Uint8Array(seen[0].body),
    }).formData();
    const file = form.get('file') as File;
    expect(file.name).toBe('audio.wav');
    expect(Buffer.from(await file.arrayBuffer()).equals(wav)).toBe(true);
    expect(form.get('model')).toBe('whisper-1');
    expect(form.get('language')).toBe('en');
    // Whisper answers verbose_json: the same text with timed segments.
    expect(form.get('response_format')).toBe('verbose_json');

    expect(output.text).toBe(`Sandbox transcription of audio.wav (${wav.length} bytes, language en).`);
    expect(output.files).toEqual([]);
    expect(output.durationSeconds).toBe(2);
    expect(output.usage).toEqual({ seconds: 2 });
    expect(output.language).toBe('en');
    expect(output.segments!.length).toBeGreaterThan(0);
    expect(output.segments![0]).toEqual({ start: 0, end: expect.any(Number), text: expect.stringMatching(/^Sandbox transcription/) });
  });

  test('translates with whisper-1 on /audio/translations, without a language, with the prompt', async () => {
    const output = await run({
      category: 'stt',
      upstreamModel: 'whisper-1',
      audio: { data: wav, mime: 'audio/wav' },
      language: 'de',
      prompt: 'Namen: Anja, Jörg',
      translate: true,
    });
    expect(seen.at(-1)!.path).toBe('/v1/audio/translations');
    const form = await new Request('http://x', {
      method: 'POST',
      headers: { 'content-type': String(seen.at(-1)!.headers['content-type']) },
      body: new Uint8Array(seen.at(-1)!.body),
    }).formData();
    expect([form.get('language'), form.get('prompt')]).toEqual([null, 'Namen: Anja, Jörg']);
    expect(output).toMatchObject({ text: expect.stringMatching(/^Sandbox translation/), language: 'en' });
  });

  test('keeps an uploaded file name and reports token usage for gpt-4o-transcribe', async () => {
    const output = await run({
      category: 'stt',
      upstreamModel: 'gpt-4o-transcribe',
      audio: { data: wav, mime: 'audio/wav', filename: 'meeting.wav' },
    });
    expect(output.text).toBe(`Sandbox transcription of meeting.wav (${wav.length} bytes).`);
    expect(output.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
  });

  test('a wrong key is refused as auth', async () => {
    const started = media.start(
      { category: 'stt', slug: 'whisper-1', upstreamModel: 'whisper-1', audio: { data: wav, mime: 'audio/wav' } },
      conn({ apiKey: 'invalid-key' }),
    );
    expect(await failure(started)).toMatchObject({ kind: 'auth', upstreamStatus: 401 });
  });
});

describe('openai media dispatch', () => {
  test('categories OpenAI does not serve are refused', async () => {
    const err = await failure(media.start({ category: 'video', slug: 'x', upstreamModel: 'x', prompt: 'x' }, conn()));
    expect(err.kind).toBe('bad_request');
  });

  test('there is never a job to poll', async () => {
    const polled = await media.poll('job-1', { category: 'image', slug: 'dall-e-3', upstreamModel: 'dall-e-3' }, conn());
    expect(polled.state).toBe('failed');
  });
});

describe('options the vendor does not take', () => {
  test('a seed given to a GPT Image model is left out of the body and reported as a warning', async () => {
    const req = { category: 'image', upstreamModel: 'gpt-image-2.6-flare', slug: 'gpt-image-2.6-flare', prompt: 'a fox' } as const;
    const withSeed = await run({ ...req, seed: 42 });
    expect(bodyOf(seen[seen.length - 1])).not.toHaveProperty('seed');
    expect(withSeed.warnings).toEqual([
      { type: 'unsupported-setting', setting: 'seed', message: 'seed is not used by gpt-image-2.6-flare and was left out' },
    ]);
    const without = await run(req);
    expect(without.warnings).toBeUndefined();
  });
});
