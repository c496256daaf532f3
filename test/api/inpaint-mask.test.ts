// POST /api/v2/inpaint and /generate with the inpaint tool: the mask is optional when the image has a transparent
// area (that area is repainted), and an opaque image without a mask is a 400 naming the mask before anything runs.
import sharp from 'sharp';
import { getBalance } from '../../src/core/billing/ledger';
import { syntheticImage } from '../../src/sandbox/synthetic';
import { pngWithHole } from '../support/images';
import { multipart } from '../support/multipart';
import { ApiHarness, expectErrorShape, startApi } from './harness';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

function inpaintForm(image: Buffer, prompt = 'a red chair') {
  return multipart([
    { name: 'image', value: image, filename: 'i.png', type: 'image/png' },
    { name: 'prompt', value: prompt },
  ]);
}

test('an opaque image without a mask: 400 naming `mask`, nothing run or charged', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const form = inpaintForm(await syntheticImage(256, 256, 'room'));
  const res = await api.request('POST', '/api/v2/inpaint', { token, raw: form.body, headers: { 'Content-Type': form.type } });
  expectErrorShape(res, 400, 'validation_error');
  expect(res.body.field).toBe('mask');
  expect(res.body.message).toMatch(/transparent/);
  expect(await api.db.dataSource.query('SELECT id FROM generations WHERE user_id = $1', [acc.user.id])).toEqual([]);
  expect((await getBalance(api.db.dataSource, acc.user.id)).total).toBe(50);
});

test('an image with a transparent area and no mask: that area is repainted', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const form = inpaintForm(await pngWithHole());
  const res = await api.request('POST', '/api/v2/inpaint', { token, raw: form.body, headers: { 'Content-Type': form.type } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'completed', model_slug: 'inpaint', tokens_spent: 3 });
});

test('POST /generate with the inpaint tool and an opaque image names params.mask_url', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const image = `data:image/png;base64,${(await syntheticImage(128, 128, 'x')).toString('base64')}`;
  const res = await api.request('POST', '/api/v2/generate', {
    token,
    body: { model: 'inpaint', prompt: 'a red chair', params: { image_url: image } },
  });
  expectErrorShape(res, 400, 'validation_error');
  expect(res.body.field).toBe('params.mask_url');
});

test('a mask of another size but the same proportions is scaled to the image; other proportions are refused', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const image = await syntheticImage(256, 256, 'room');
  const small = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#fff' } })
    .png()
    .toBuffer();
  const wide = await sharp({ create: { width: 128, height: 64, channels: 3, background: '#fff' } })
    .png()
    .toBuffer();
  const send = (mask: Buffer) => {
    const form = multipart([
      { name: 'image', value: image, filename: 'i.png', type: 'image/png' },
      { name: 'mask', value: mask, filename: 'm.png', type: 'image/png' },
      { name: 'prompt', value: 'a red chair' },
    ]);
    return api.request('POST', '/api/v2/inpaint', { token, raw: form.body, headers: { 'Content-Type': form.type } });
  };
  expect((await send(small)).body).toMatchObject({ status: 'completed' });
  const refused = await send(wide);
  expectErrorShape(refused, 422, 'invalid_input');
  expect(refused.body.field).toBe('mask');
});
