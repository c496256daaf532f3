import sharp from 'sharp';
import Replicate from 'replicate';
import { REPLICATE_VERSIONS } from '../../src/core/providers/replicate/models';
import { replicateSandbox } from '../../src/sandbox/replicate';
import { useFake } from './sandbox';

// The official `replicate` client as the client of our Replicate fake: predictions on pinned versions and on
// official models, polling, the files API used for large inputs, and the error answers.

const fake = useFake('replicate', replicateSandbox);
const client = (auth = 'r8_contract') => new Replicate({ auth, baseUrl: `${fake.mount()}/v1` });

async function settle(r: Replicate, id: string) {
  for (let i = 0; i < 10; i++) {
    const p = await r.predictions.get(id);
    if (p.status === 'succeeded' || p.status === 'failed' || p.status === 'canceled') return p;
  }
  throw new Error('still running');
}

test('a prediction on a pinned version: created, polled to succeeded, with output URLs', async () => {
  const r = client();
  const created = await r.predictions.create({
    version: REPLICATE_VERSIONS.sdxl,
    input: { prompt: 'a red fox', width: 768, height: 768, num_outputs: 1 },
  });
  expect(created.status).toMatch(/starting|processing/);
  expect(created.urls.get).toContain(`/v1/predictions/${created.id}`);
  const done = await settle(r, created.id);
  expect(done.status).toBe('succeeded');
  const output = done.output as string[];
  expect(output[0]).toMatch(/^http/);
});

test('a prediction on an official model (POST /v1/models/{owner}/{name}/predictions)', async () => {
  const r = client();
  const created = await r.predictions.create({
    model: 'stability-ai/stable-diffusion-3.5-large',
    input: { prompt: 'a lighthouse', aspect_ratio: '16:9' },
  });
  expect((await settle(r, created.id)).status).toBe('succeeded');
});

test('music: a musicgen prediction ends with one audio URL', async () => {
  const r = client();
  const created = await r.predictions.create({
    version: REPLICATE_VERSIONS.musicgen,
    input: { prompt: 'calm piano', duration: 15, output_format: 'mp3' },
  });
  const done = await settle(r, created.id);
  expect(done.status).toBe('succeeded');
  expect(String(done.output)).toMatch(/^http.*\.(mp3|wav)$/);
});

test('files.create: an upload the predictions accept by its urls.get', async () => {
  const r = client();
  const png = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#777' } })
    .png()
    .toBuffer();
  const file = await r.files.create(png, { purpose: 'contract' });
  expect(file.urls.get).toMatch(/\/v1\/files\/\w+$/);
  expect(file.size).toBe(png.length);
  const created = await r.predictions.create({ version: REPLICATE_VERSIONS.ddcolor, input: { image: file.urls.get, model_size: 'large' } });
  expect((await settle(r, created.id)).status).toBe('succeeded');
});

test('error answers: unknown model 404 and invalid input 422 as ApiError with the status', async () => {
  const missing = await client()
    .predictions.create({ model: 'nobody/nothing', input: { prompt: 'x' } })
    .catch((e: unknown) => e);
  // The client's ApiError (not exported by the package) carries the HTTP response.
  expect(missing).toMatchObject({ name: 'ApiError', response: { status: 404 } });
  const invalid = await client()
    .predictions.create({ version: REPLICATE_VERSIONS.sdxl, input: {} })
    .catch((e: unknown) => e);
  expect(invalid).toMatchObject({ name: 'ApiError', response: { status: 422 } });
});
