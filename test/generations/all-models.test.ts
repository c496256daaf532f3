import sharp from 'sharp';
import { listModels } from '../../src/core/catalog/catalog';
import { ModelDefinition } from '../../src/core/catalog/types';
import { GenerationEntity } from '../../src/db/entities';
import { syntheticImage, syntheticWav } from '../../src/sandbox/synthetic';
import { Engine, startEngine } from '../support/engine';
import { parseGenerateCommand } from '../../src/api/v2/generate-body';
import { CATALOG_SHAPE } from '../fixtures/catalog-shape';
import { eventually } from '../support/wait';

// Every model of the catalog runs end to end through its real adapter against the sandbox upstream: what
// `npm start` offers a newcomer with no credentials.
let engine: Engine;
const ctx = { source: 'api' as const, ownOrigins: [] };

beforeAll(async () => {
  engine = await startEngine();
  await engine.startWorkers();
});
afterAll(() => engine.close());

async function imageUri(): Promise<string> {
  return `data:image/png;base64,${(await syntheticImage(128, 128, 'input')).toString('base64')}`;
}

async function maskUri(): Promise<string> {
  const mask = await sharp({ create: { width: 128, height: 128, channels: 3, background: '#000' } })
    .composite([{ input: { create: { width: 32, height: 32, channels: 3, background: '#fff' } }, left: 48, top: 48 }])
    .png()
    .toBuffer();
  return `data:image/png;base64,${mask.toString('base64')}`;
}

async function bodyFor(m: ModelDefinition): Promise<Record<string, unknown>> {
  switch (m.category) {
    case 'image':
      return {
        model: m.slug,
        prompt: 'a quiet harbour at dawn',
        ...(m.config.image_input === 'required' ? { image_url: await imageUri() } : {}),
      };
    case 'video':
      return { model: m.slug, prompt: 'waves on rocks', ...(m.config.image_input === 'required' ? { image_url: await imageUri() } : {}) };
    case 'tts':
      return { model: m.slug, prompt: 'Hello from the sandbox.' };
    case 'music':
      return { model: m.slug, prompt: 'gentle piano', duration: 15 };
    case 'tool':
      if (m.config.input === 'image_pair')
        return { model: m.slug, params: { source_image_url: await imageUri(), target_image_url: await imageUri() } };
      return {
        model: m.slug,
        ...(m.config.requires_prompt ? { prompt: 'make it warmer' } : {}),
        params: { image_url: await imageUri(), ...(m.config.supports_mask ? { mask_url: await maskUri() } : {}) },
      };
    default:
      throw new Error(`no body for ${m.category}`);
  }
}

async function settled(id: number): Promise<GenerationEntity> {
  const repo = engine.db.dataSource.getRepository(GenerationEntity);
  return eventually(
    async () => {
      const g = await repo.findOneByOrFail({ id });
      return g.status === 'pending' ? undefined : g;
    },
    30_000,
    `generation ${id} finished`,
  );
}

const models = listModels();

test('every catalog model is run here', () => {
  expect(models).toHaveLength(CATALOG_SHAPE.models);
});

describe.each(models.map((m) => [m.slug, m] as const))('%s', (_slug, model) => {
  test('runs end to end through its adapter and the sandbox, charged its price', async () => {
    const actor = await engine.actor('elite', { plan: 10_000 });
    if (model.category === 'text') {
      const out = await engine.services.chat.complete(
        actor,
        { model: model.slug, messages: [{ role: 'user', content: 'Say something short.' }] },
        ctx,
      );
      expect(out.result.text.length).toBeGreaterThan(0);
      expect(out.tokensSpent).toBeGreaterThanOrEqual(1);
      return;
    }
    if (model.category === 'stt') {
      const { generation } = await engine.services.generations.transcribe(
        actor,
        { audio: { data: syntheticWav(1), mime: 'audio/wav' }, model: model.slug },
        ctx,
      );
      expect(generation.status).toBe('completed');
      expect(typeof generation.resultText).toBe('string');
      return;
    }
    const { generation } = await engine.services.generations.generate(actor, parseGenerateCommand(await bodyFor(model)), ctx);
    const g = generation.status === 'pending' ? await settled(generation.id) : generation;
    expect([g.status, g.error]).toEqual(['completed', null]);
    expect(g.tokensSpent).toBe(g.tokensReserved);
    expect(g.resultKey !== null || typeof g.resultText === 'string').toBe(true);
    expect(g.sandbox).toBe(model.provider !== 'local');
  }, 60_000);
});
