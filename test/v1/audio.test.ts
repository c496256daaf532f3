import { createOpenAI } from '@ai-sdk/openai';
import { experimental_generateSpeech as generateSpeech, experimental_transcribe as transcribe } from 'ai';
import OpenAI, { toFile } from 'openai';
import { syntheticImage, syntheticWav } from '../../src/sandbox/synthetic';
import { ApiHarness, startApi, TestAccount } from '../api/harness';
import { multipart } from '../support/multipart';

// OpenAI's Audio API (/v1/audio/speech, /transcriptions, /translations) through the official `openai` SDK and the
// AI SDK, on models of two vendors each: the same generations, prices and ledger as /api/v2.

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const ELEVENLABS_VOICE = 'JBFqnCBsd6RMkjVDRZzb';

async function client(tokens = 1000): Promise<{ openai: OpenAI; key: string; account: TestAccount }> {
  const account = await api.account('vip', { planTokens: tokens, bonusTokens: 0 });
  const key = await api.apiKey(account);
  return { openai: new OpenAI({ apiKey: key, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 }), key, account };
}

async function chargedInLedger(userId: number): Promise<number> {
  const rows = await api.db.dataSource.query<{ charged: string | null }[]>(
    `SELECT -SUM(plan_delta + bonus_delta) AS charged FROM ledger_entries WHERE user_id = $1 AND reference LIKE 'gen:%'`,
    [userId],
  );
  return Number(rows[0]?.charged ?? 0);
}

async function quote(key: string, slug: string, body: Record<string, unknown>): Promise<number> {
  const res = await api.request('POST', `/api/v2/models/${slug}/calculate-price`, { token: key, body });
  expect(res.status).toBe(200);
  return res.body.tokens as number;
}

const wav = (seconds = 2, name = 'talk.wav') => toFile(syntheticWav(seconds), name, { type: 'audio/wav' });

async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

describe('audio.speech.create', () => {
  const input = 'Good evening, and welcome to the sandbox.';

  test.each([
    ['google', 'gemini-3.8-flash-tts', 'Kore', 'wav', 'audio/wav'],
    ['elevenlabs', 'vendor-v2', ELEVENLABS_VOICE, 'mp3', 'audio/mpeg'],
  ] as const)('a %s model speaks in its voice, charged what calculate-price quotes', async (_vendor, model, voice, format, mime) => {
    const { openai, key, account } = await client();
    const res = await openai.audio.speech.create({ model, input, voice, response_format: format });
    expect(res.headers.get('content-type')).toBe(mime);
    const audio = Buffer.from(await res.arrayBuffer());
    if (format === 'wav') expect(audio.subarray(0, 4).toString()).toBe('RIFF');
    else expect(audio.length).toBeGreaterThan(100);
    expect(res.headers.get('x-ignored-parameters')).toBeNull();
    const price = await quote(key, model, { prompt: input });
    expect(await chargedInLedger(account.user.id)).toBe(price);
    expect(Number(res.headers.get('x-token-balance'))).toBe(1000 - price);
  });

  test('what the model does not take is ignored and named: another model’s format or voice, speed, instructions', async () => {
    const { openai } = await client();
    const res = await openai.audio.speech.create({
      model: 'gemini-3.8-flash-lite-tts',
      input,
      voice: ELEVENLABS_VOICE,
      response_format: 'mp3',
      speed: 1.1,
      instructions: 'cheerful',
    });
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('x-ignored-parameters')!.split(', ').sort()).toEqual(['instructions', 'response_format', 'speed', 'voice']);
  });

  test('a voice or a format no speech model offers, an empty input, a text model: 400 naming it', async () => {
    const { openai } = await client();
    const voice = await refusal(openai.audio.speech.create({ model: 'vendor-v2', input, voice: 'alloy' }));
    expect([voice.status, voice.param]).toEqual([400, 'voice']);
    expect(voice.message).toMatch(/alloy/);
    const format = await refusal(
      openai.audio.speech.create({ model: 'vendor-v2', input, voice: ELEVENLABS_VOICE, response_format: 'opus' }),
    );
    expect([format.status, format.param]).toEqual([400, 'response_format']);
    const empty = await refusal(openai.audio.speech.create({ model: 'vendor-v2', input: '', voice: ELEVENLABS_VOICE }));
    expect([empty.status, empty.param]).toEqual([400, 'prompt']);
    const text = await refusal(openai.audio.speech.create({ model: 'gpt-6-luna', input, voice: 'Kore' }));
    expect([text.status, text.param]).toEqual([400, 'model']);
  });

  test('AI SDK generateSpeech on a Gemini and an ElevenLabs model', async () => {
    const { key } = await client();
    const provider = createOpenAI({ baseURL: `${api.baseUrl}/v1`, apiKey: key });
    const gemini = await generateSpeech({ model: provider.speech('gemini-3.8-flash-tts'), text: input, voice: 'Puck' });
    // The AI SDK asks for mp3 unless told otherwise; Gemini speaks WAV, and the answer says so.
    expect(gemini.audio.mediaType).toBe('audio/wav');
    const eleven = await generateSpeech({ model: provider.speech('vendor-flash-v2-5'), text: input, voice: ELEVENLABS_VOICE });
    expect(eleven.audio.mediaType).toBe('audio/mpeg');
    expect(eleven.audio.uint8Array.length).toBeGreaterThan(100);
  });
});

describe('audio.transcriptions.create', () => {
  test.each(['gpt-transcribe', 'gpt-4o-transcribe', 'vendor-scribe-v2'])('%s: json, charged what calculate-price quotes', async (model) => {
    const { openai, key, account } = await client();
    const res = await openai.audio.transcriptions.create({ model, file: await wav(), language: 'en' }).withResponse();
    expect(res.data.text.length).toBeGreaterThan(0);
    expect(res.response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await chargedInLedger(account.user.id)).toBe(await quote(key, model, {}));
  });

  test('verbose_json: Scribe’s timed segments and words; a vendor without timings gives one segment over the audio', async () => {
    const { openai } = await client();
    const gpt = await openai.audio.transcriptions.create({
      model: 'gpt-transcribe',
      file: await wav(3),
      language: 'en',
      response_format: 'verbose_json',
    });
    expect(gpt.segments).toHaveLength(1);
    expect(gpt.segments![0]).toMatchObject({ start: 0, end: 3, text: gpt.text });
    expect([gpt.duration, gpt.language]).toEqual([3, 'english']);
    const scribe = await openai.audio.transcriptions.create({
      model: 'vendor-scribe-v2',
      file: await wav(3),
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
    });
    expect(scribe.segments!.map((s) => s.text)).toEqual(['Hello from the sandbox.', 'This transcript is synthetic.', 'Goodbye.']);
    expect(scribe.words!.map((w) => w.word).join(' ')).toBe('Hello from the sandbox. This transcript is synthetic. Goodbye.');
  });

  test('srt, vtt and text answer text; a model without timings gives one cue over the audio', async () => {
    const { openai } = await client();
    const srt = await openai.audio.transcriptions.create({ model: 'vendor-scribe-v2', file: await wav(3), response_format: 'srt' });
    expect(srt).toMatch(/^1\n00:00:00,000 --> 00:00:0\d,\d{3}\nHello from the sandbox\.\n\n2\n/);
    const vtt = await openai.audio.transcriptions.create({ model: 'vendor-scribe-v2', file: await wav(2), response_format: 'vtt' });
    expect(vtt).toMatch(/^WEBVTT\n\n00:00:00\.000 --> /);
    const single = await openai.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await wav(2), response_format: 'srt' });
    expect(single).toMatch(/^1\n00:00:00,000 --> 00:00:0\d,\d{3}\nSandbox transcription/);
    expect(single).not.toMatch(/\n2\n/);
    const text = await openai.audio.transcriptions.create({ model: 'gpt-transcribe', file: await wav(1), response_format: 'text' });
    expect(text).toMatch(/^Sandbox transcription/);
  });

  test('diarized_json on the model with diarization; elsewhere a 400 naming response_format', async () => {
    const { openai } = await client();
    const res = (await openai.audio.transcriptions.create({
      model: 'vendor-scribe-v2',
      file: await wav(3),
      response_format: 'diarized_json',
    } as never)) as unknown as { segments: { speaker: string; text: string }[] };
    expect(res.segments.map((s) => [s.speaker, s.text])).toEqual([
      ['A', 'Hello from the sandbox.'],
      ['B', 'This transcript is synthetic.'],
      ['A', 'Goodbye.'],
    ]);
    const refused = await refusal(
      openai.audio.transcriptions.create({ model: 'gpt-transcribe', file: await wav(), response_format: 'diarized_json' } as never),
    );
    expect([refused.status, refused.param]).toEqual([400, 'response_format']);
  });

  test('a prompt the vendor does not take is ignored and named; OpenAI gets it', async () => {
    const { openai } = await client();
    const scribe = await openai.audio.transcriptions
      .create({ model: 'vendor-scribe-v2', file: await wav(), prompt: 'Names: Anja', temperature: 0.2 })
      .withResponse();
    expect(scribe.response.headers.get('x-ignored-parameters')!.split(', ').sort()).toEqual(['prompt', 'temperature']);
    const gpt = await openai.audio.transcriptions
      .create({ model: 'gpt-transcribe', file: await wav(), prompt: 'Names: Anja' })
      .withResponse();
    expect(gpt.response.headers.get('x-ignored-parameters')).toBeNull();
  });

  test('a non-audio upload is a 400, audio over 25 MB a 413, both in OpenAI’s error body', async () => {
    const { openai, key } = await client();
    const png = await toFile(await syntheticImage(32, 32, 'x'), 'clip.wav', { type: 'audio/wav' });
    const notAudio = await refusal(openai.audio.transcriptions.create({ model: 'gpt-transcribe', file: png }));
    expect([notAudio.status, notAudio.param]).toEqual([400, 'file']);
    const big = Buffer.concat([syntheticWav(1), Buffer.alloc(26 * 1024 * 1024)]);
    const form = multipart([
      { name: 'model', value: 'gpt-transcribe' },
      { name: 'file', value: big, filename: 'long.wav', type: 'audio/wav' },
    ]);
    const res = await api.request('POST', '/v1/audio/transcriptions', {
      token: key,
      raw: form.body,
      headers: { 'Content-Type': form.type },
    });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', message: expect.any(String) });
  });

  test('AI SDK transcribe on GPT Transcribe and Scribe', async () => {
    const { key } = await client();
    const provider = createOpenAI({ baseURL: `${api.baseUrl}/v1`, apiKey: key });
    for (const model of ['gpt-transcribe', 'vendor-scribe-v2']) {
      const result = await transcribe({ model: provider.transcription(model), audio: syntheticWav(2) });
      expect(result.text.length).toBeGreaterThan(0);
      expect(result.durationInSeconds).toBeCloseTo(2, 0);
    }
  });
});

describe('audio.translations.create', () => {
  test.each(['gpt-transcribe', 'gpt-4o-transcribe'])('%s translates into English, charged as a transcription', async (model) => {
    const { openai, key, account } = await client();
    const res = await openai.audio.translations.create({ model, file: await wav(), response_format: 'verbose_json' });
    expect(res).toMatchObject({ language: 'english', text: expect.stringMatching(/^Sandbox translation/) });
    expect((res as unknown as { task: string }).task).toBe('translate');
    expect(await chargedInLedger(account.user.id)).toBe(await quote(key, model, {}));
  });

  test('a model without translation: 400 naming model and the models that translate', async () => {
    const { openai } = await client();
    const refused = await refusal(openai.audio.translations.create({ model: 'vendor-scribe-v2', file: await wav() }));
    expect([refused.status, refused.param]).toEqual([400, 'model']);
    expect(refused.message).toMatch(/gpt-transcribe/);
  });

  test('a retired model is served by its replacement and says so', async () => {
    const { openai } = await client();
    const res = await openai.audio.translations.create({ model: 'whisper-1', file: await wav() }).withResponse();
    expect(res.response.headers.get('x-model-replaced')).toBe('whisper-1->gpt-transcribe');
    expect(res.data.text).toMatch(/^Sandbox translation/);
  });
});

test('a replayed Idempotency-Key answers the same transcript without charging again', async () => {
  const { key, account } = await client();
  const form = multipart([
    { name: 'model', value: 'gpt-transcribe' },
    { name: 'response_format', value: 'text' },
    { name: 'file', value: syntheticWav(1), filename: 'a.wav', type: 'audio/wav' },
  ]);
  const send = () =>
    api.request('POST', '/v1/audio/transcriptions', {
      token: key,
      raw: form.body,
      headers: { 'Content-Type': form.type, 'Idempotency-Key': `stt-${account.user.id}` },
    });
  const first = await send();
  const again = await send();
  expect(again.text).toBe(first.text);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await chargedInLedger(account.user.id)).toBe(2);
});
