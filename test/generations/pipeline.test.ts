import { avoidWindowEdge } from '../api/harness';
import sharp from 'sharp';
import { GenerationEntity } from '../../src/db/entities';
import { PlanTooLowError } from '../../src/core/accounts/errors';
import { InsufficientTokensError } from '../../src/core/billing/errors';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { quoteGeneration } from '../../src/core/catalog/pricing';
import { requireModel } from '../../src/core/catalog/catalog';
import { RateLimitedError } from '../../src/core/limits/rate-limiter';
import { readStoredObject } from '../../src/core/media/storage';
import { createPendingGeneration } from '../../src/core/generations/settlement/lifecycle';
import { startWorkers } from '../../src/jobs/workers';
import { syntheticImage, syntheticWav } from '../../src/sandbox/synthetic';
import { Engine, startEngine } from '../support/engine';
import { parseGenerateCommand } from '../../src/api/v2/generate-body';
import { eventually } from '../support/wait';

let engine: Engine;
const ctx = { source: 'api' as const, ownOrigins: ['http://service.test'] };

beforeAll(async () => {
  engine = await startEngine();
});
afterAll(() => engine.close());

/** The generation once it is no longer pending (or as it is after `timeoutMs`: the caller's expectations say why). */
async function waitFor(id: number, timeoutMs = 20_000): Promise<GenerationEntity> {
  const repo = engine.db.dataSource.getRepository(GenerationEntity);
  const finished = await eventually(async () => {
    const g = await repo.findOneByOrFail({ id });
    return g.status === 'pending' ? undefined : g;
  }, timeoutMs).catch(() => undefined);
  return finished ?? repo.findOneByOrFail({ id });
}

async function expectBooksBalanced(userId: number) {
  const b = await getBalance(engine.db.dataSource, userId);
  expect(await ledgerTotals(engine.db.dataSource, userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

test('a synchronous image completes in the first answer, charged exactly its quote, in each format and size', async () => {
  const actor = await engine.actor('basic', { plan: 200, bonus: 0 });
  for (const [format, mime] of [
    ['webp', 'image/webp'],
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
  ] as const) {
    const body = { model: 'flux-dev', prompt: 'a red fox', size: '768x1344', format };
    const { generation: g } = await engine.services.generations.generate(actor, parseGenerateCommand(body), ctx);
    expect(g).toMatchObject({ status: 'completed', tokensSpent: quoteGeneration(requireModel('flux-dev'), { size: '768x1344' }) });
    expect(g.resultMetadata).toEqual({ width: 768, height: 1344 });
    const stored = await engine.services.storage.get(g.resultKey!);
    expect(stored?.mime).toBe(mime);
    const meta = await sharp(await readStoredObject(stored!, 50e6)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual([format, 768, 1344]);
  }
  expect((await getBalance(engine.db.dataSource, actor.user.id)).total).toBe(
    200 - 3 * quoteGeneration(requireModel('flux-dev'), { size: '768x1344' }),
  );
  await expectBooksBalanced(actor.user.id);
});

test('an async video answers pending, is finished by the durable worker, and is charged once', async () => {
  await engine.startWorkers();
  const actor = await engine.actor('basic', { plan: 500, bonus: 0 });
  const { generation: g } = await engine.services.generations.generate(
    actor,
    parseGenerateCommand({ model: 'gemini-omni-1.1-flash', prompt: 'waves' }),
    ctx,
  );
  expect(g.status).toBe('pending');
  expect(g.etaSeconds).toBeGreaterThan(0);
  const cost = quoteGeneration(requireModel('gemini-omni-1.1-flash'), {});
  expect((await getBalance(engine.db.dataSource, actor.user.id)).total).toBe(500 - cost);
  const done = await waitFor(g.id);
  expect(done).toMatchObject({ status: 'completed', tokensSpent: cost, resultMime: 'video/mp4' });
  expect((await getBalance(engine.db.dataSource, actor.user.id)).total).toBe(500 - cost);
  await expectBooksBalanced(actor.user.id);
});

test('an Omni job whose download redirects completes and is billed for the duration asked (4 s, not 8)', async () => {
  await engine.startWorkers();
  const actor = await engine.actor('basic', { plan: 500, bonus: 0 });
  const body = { model: 'gemini-omni-1.1-flash', prompt: 'waves on rocks', duration: 4 };
  const { generation: g } = await engine.services.generations.generate(actor, parseGenerateCommand(body), ctx);
  const cost = quoteGeneration(requireModel('gemini-omni-1.1-flash'), { durationSeconds: 4 });
  expect(cost).toBeLessThan(quoteGeneration(requireModel('gemini-omni-1.1-flash'), { durationSeconds: 8 }));
  // The sandbox answers the video URI with a 302 to another path, as Google does.
  const done = await waitFor(g.id);
  expect(done).toMatchObject({ status: 'completed', tokensSpent: cost, durationSeconds: 4, resultMime: 'video/mp4' });
  expect((await getBalance(engine.db.dataSource, actor.user.id)).total).toBe(500 - cost);
  await expectBooksBalanced(actor.user.id);
});

test('a pending generation survives a restart: a new process finishes it', async () => {
  const actor = await engine.actor('basic', { plan: 100, bonus: 0 });
  const { generation: g } = await engine.services.generations.generate(
    actor,
    parseGenerateCommand({ model: 'musicgen', prompt: 'calm piano' }),
    ctx,
  );
  expect(g.status).toBe('pending');
  const fresh = await engine.restart();
  await fresh.boss.start();
  await startWorkers(fresh.boss, fresh);
  const done = await waitFor(g.id);
  expect(done.status).toBe('completed');
  expect(done.tokensSpent).toBe(9);
  await expectBooksBalanced(actor.user.id);
});

test('a failing upstream ends failed with a clear error and charges nothing', async () => {
  const actor = await engine.actor('basic', { plan: 50, bonus: 5 });
  const { generation: g } = await engine.services.generations.generate(
    actor,
    parseGenerateCommand({ model: 'gpt-image-2.6-flare', prompt: 'a cat [[fail:policy]]' }),
    ctx,
  );
  expect(g).toMatchObject({ status: 'failed', tokensSpent: 0, errorKind: 'content_policy' });
  expect(g.error).toMatch(/content policy/);
  expect(await getBalance(engine.db.dataSource, actor.user.id)).toMatchObject({ planTokens: 50, bonusTokens: 5 });
  await expectBooksBalanced(actor.user.id);
});

test('402: a short balance refuses before anything is stored or charged', async () => {
  const actor = await engine.actor('basic', { plan: 1, bonus: 0 });
  await expect(
    engine.services.generations.generate(actor, parseGenerateCommand({ model: 'gpt-image-2.6-flare', prompt: 'x' }), ctx),
  ).rejects.toBeInstanceOf(InsufficientTokensError);
  const rows = await engine.db.dataSource.getRepository(GenerationEntity).countBy({ userId: actor.user.id });
  expect(rows).toBe(0);
  expect((await getBalance(engine.db.dataSource, actor.user.id)).total).toBe(1);
});

test('403: a Starter account cannot run a Basic+ model, and learns which plan opens it', async () => {
  const actor = await engine.actor('free');
  await expect(
    engine.services.generations.generate(actor, parseGenerateCommand({ model: 'gpt-image-2.6-flare', prompt: 'x' }), ctx),
  ).rejects.toMatchObject({
    constructor: PlanTooLowError,
    requiredPlan: 'basic',
  });
});

test('429: requests past the hourly limit are refused and not charged', async () => {
  await avoidWindowEdge(3600, 10);
  const actor = await engine.actor('free', { bonus: 100 });
  const limited = { ...actor, plan: { ...actor.plan, rateLimitHourly: 2 } };
  const body = {
    model: 'remove-bg',
    params: { image_url: `data:image/png;base64,${(await syntheticImage(64, 64, 'x')).toString('base64')}` },
  };
  await engine.services.generations.generate(limited, parseGenerateCommand(body), ctx);
  await engine.services.generations.generate(limited, parseGenerateCommand(body), ctx);
  await expect(engine.services.generations.generate(limited, parseGenerateCommand(body), ctx)).rejects.toBeInstanceOf(RateLimitedError);
  expect((await getBalance(engine.db.dataSource, actor.user.id)).total).toBe(98);
});

test('tools chain on our own result URLs; text-ocr answers result_text', async () => {
  const actor = await engine.actor('free', { bonus: 100 });
  const png = await sharp({ create: { width: 600, height: 160, channels: 3, background: '#ffffff' } })
    .composite([
      {
        input: Buffer.from(
          '<svg width="600" height="160"><text x="20" y="100" font-size="72" font-family="sans-serif">HELLO 42</text></svg>',
        ),
      },
    ])
    .png()
    .toBuffer();
  const ocr = await engine.services.generations.generate(
    actor,
    parseGenerateCommand({ model: 'text-ocr', params: { image_url: `data:image/png;base64,${png.toString('base64')}` } }),
    ctx,
  );
  expect(ocr.generation.status).toBe('completed');
  expect(ocr.generation.resultText).toMatch(/HELLO/);

  const up = await engine.services.generations.generate(
    actor,
    parseGenerateCommand({ model: 'upscale', params: { image_url: `data:image/png;base64,${png.toString('base64')}`, scale: 2 } }),
    ctx,
  );
  expect(up.generation.status).toBe('completed');
  const chained = await engine.services.generations.generate(
    actor,
    parseGenerateCommand({ model: 'colorize', params: { image_url: `http://service.test/files/${up.generation.resultKey}` } }),
    ctx,
  );
  expect(chained.generation.status).toBe('completed');
}, 60_000);

test('speech-to-text with the default model, and diarization only on vendor-scribe-v2', async () => {
  const actor = await engine.actor('basic', { plan: 100 });
  const audio = { data: syntheticWav(1), mime: 'audio/wav', filename: 'a.wav' };
  const { generation: g } = await engine.services.generations.transcribe(actor, { audio }, ctx);
  expect(g).toMatchObject({ status: 'completed', modelSlug: 'gpt-transcribe', tokensSpent: 2 });
  expect(typeof g.resultText).toBe('string');
  await expect(engine.services.generations.transcribe(actor, { audio, diarize: true }, ctx)).rejects.toMatchObject({ field: 'diarize' });
  const d = await engine.services.generations.transcribe(actor, { audio, model: 'vendor-scribe-v2', diarize: true }, ctx);
  expect(d.generation.resultText).toMatch(/^\[Speaker 1\]: /m);
});

test('the deadline sweeper fails and releases a pending generation whose job was lost', async () => {
  const actor = await engine.actor('basic', { plan: 100 });
  // A pending generation with its tokens held, whose job never ran, past its deadline.
  const { id } = await createPendingGeneration(engine.db.dataSource, {
    userId: actor.user.id,
    modelSlug: 'hailuo-02',
    category: 'video',
    source: 'api',
    prompt: 'lost',
    params: {},
    tokensReserved: 30,
    etaSeconds: 60,
    delivery: null,
    sandbox: true,
    deadlineAt: new Date(Date.now() - 5 * 60_000),
  });
  expect((await getBalance(engine.db.dataSource, actor.user.id)).total).toBe(70);
  expect(await engine.services.generations.sweepExpired()).toBeGreaterThanOrEqual(1);
  const after = await engine.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ id });
  expect(after).toMatchObject({ status: 'failed', errorKind: 'timeout', tokensSpent: 0 });
  expect((await getBalance(engine.db.dataSource, actor.user.id)).total).toBe(100);
  // A second sweep (another instance) changes nothing.
  await engine.services.generations.sweepExpired();
  expect((await getBalance(engine.db.dataSource, actor.user.id)).total).toBe(100);
  await expectBooksBalanced(actor.user.id);
});

test('40 parallel tool requests against a balance of 10: exactly 10 run and are charged, 30 are refused', async () => {
  const actor = await engine.actor('elite', { plan: 6, bonus: 4 });
  const image = `data:image/png;base64,${(await syntheticImage(32, 32, 'p')).toString('base64')}`;
  const results = await Promise.allSettled(
    Array.from({ length: 40 }, () =>
      engine.services.generations.generate(actor, parseGenerateCommand({ model: 'remove-bg', params: { image_url: image } }), ctx),
    ),
  );
  const done = results.filter((r) => r.status === 'fulfilled');
  expect(done).toHaveLength(10);
  for (const r of results.filter((r) => r.status === 'rejected'))
    expect((r as PromiseRejectedResult).reason).toBeInstanceOf(InsufficientTokensError);
  for (const r of done) expect((r as PromiseFulfilledResult<{ generation: GenerationEntity }>).value.generation.status).toBe('completed');
  expect((await getBalance(engine.db.dataSource, actor.user.id)).total).toBe(0);
  await expectBooksBalanced(actor.user.id);
}, 60_000);
