import OpenAI, { toFile } from 'openai';
import { listModels } from '../../src/core/catalog/catalog';
import type { ModelDefinition } from '../../src/core/catalog/types';
import { startWorkers } from '../../src/jobs/workers';
import { syntheticImage, syntheticWav } from '../../src/sandbox/synthetic';
import { ApiHarness, startApi } from '../api/harness';
import { pngWithHole } from '../support/images';
import { eventually } from '../support/wait';

// Every catalog model of the image, speech, speech-to-text and video categories answers through OpenAI's own
// routes with the official SDK, and each category's charges add up to what calculate-price quotes.

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  await api.services.boss.start();
  await startWorkers(api.services.boss, api.services);
});
afterAll(() => api.close());

async function client(): Promise<{ openai: OpenAI; key: string; userId: number }> {
  const account = await api.account('elite', { planTokens: 5000, bonusTokens: 0 });
  const key = await api.apiKey(account);
  return { openai: new OpenAI({ apiKey: key, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 }), key, userId: account.user.id };
}

async function charged(userId: number): Promise<number> {
  const rows = await api.db.dataSource.query<{ charged: string | null }[]>(
    `SELECT -SUM(plan_delta + bonus_delta) AS charged FROM ledger_entries WHERE user_id = $1 AND reference LIKE 'gen:%'`,
    [userId],
  );
  return Number(rows[0]?.charged ?? 0);
}

async function quote(key: string, slug: string, body: Record<string, unknown>): Promise<number> {
  const res = await api.request('POST', `/api/v2/models/${slug}/calculate-price`, { token: key, body });
  expect([slug, res.status]).toEqual([slug, 200]);
  return res.body.tokens as number;
}

const slugs = (category: string, filter: (m: ModelDefinition) => boolean = () => true) =>
  listModels({ category: category as ModelDefinition['category'] })
    .filter(filter)
    .map((m) => m.slug);

test('every image model: images.generate', async () => {
  const { openai, key, userId } = await client();
  const models = slugs('image');
  // Side by side: the synchronous ones answer within the request, the asynchronous one once the workers finish it.
  const answers = await Promise.all(models.map((model) => openai.images.generate({ model, prompt: 'a harbour at dawn' })));
  expect(answers.map((a) => a.data!.length)).toEqual(models.map(() => 1));
  const prices = await Promise.all(models.map((model) => quote(key, model, { prompt: 'x' })));
  expect(await charged(userId)).toBe(prices.reduce((a, b) => a + b, 0));
});

test('every model that edits: images.edit', async () => {
  const { openai, key, userId } = await client();
  const editors = [...slugs('image', (m) => m.category === 'image' && m.config.image_input !== 'none'), 'inpaint'];
  let expected = 0;
  for (const model of editors) {
    const image = await toFile(model === 'inpaint' ? await pngWithHole() : await syntheticImage(256, 256, 'x'), 'in.png', {
      type: 'image/png',
    });
    const res = await openai.images.edit({ model, image, prompt: 'add a boat' });
    expect([model, res.data!.length]).toEqual([model, 1]);
    expected += await quote(key, model, {
      prompt: 'x',
      ...(model === 'inpaint' ? { params: { image_url: 'https://example.com/a.png' } } : { image_url: 'https://example.com/a.png' }),
    });
  }
  expect(await charged(userId)).toBe(expected);
});

test('every speech model: audio.speech.create with its default voice', async () => {
  const { openai, key, userId } = await client();
  const input = 'The harbour is quiet tonight.';
  let expected = 0;
  for (const model of slugs('tts')) {
    const res = await openai.audio.speech.create({ model, input } as OpenAI.Audio.SpeechCreateParams);
    expect([model, res.status]).toEqual([model, 200]);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    expected += await quote(key, model, { prompt: input });
  }
  expect(await charged(userId)).toBe(expected);
});

test('every speech-to-text model: audio.transcriptions.create', async () => {
  const { openai, key, userId } = await client();
  let expected = 0;
  for (const model of slugs('stt')) {
    const res = await openai.audio.transcriptions.create({ model, file: await toFile(syntheticWav(1), 'a.wav', { type: 'audio/wav' }) });
    expect([model, res.text.length > 0]).toEqual([model, true]);
    expected += await quote(key, model, {});
  }
  expect(await charged(userId)).toBe(expected);
});

test('every video model: videos.create, then completed', async () => {
  const { openai, key, userId } = await client();
  const frame = await syntheticImage(256, 256, 'frame');
  const jobs = [];
  let expected = 0;
  for (const model of listModels({ category: 'video' })) {
    const needsFrame = model.category === 'video' && model.config.image_input === 'required';
    jobs.push(
      await openai.videos.create({
        model: model.slug,
        prompt: 'waves on rocks',
        ...(needsFrame ? { input_reference: await toFile(frame, 'frame.png', { type: 'image/png' }) } : {}),
      }),
    );
    expected += await quote(key, model.slug, { prompt: 'x', ...(needsFrame ? { image_url: 'https://example.com/f.png' } : {}) });
  }
  for (const job of jobs) {
    const done = await eventually(async () => {
      const v = await openai.videos.retrieve(job.id);
      return v.status === 'completed' || v.status === 'failed' ? v : undefined;
    }, 30_000);
    expect([job.model, done.status]).toEqual([job.model, 'completed']);
  }
  expect(await charged(userId)).toBe(expected);
});
