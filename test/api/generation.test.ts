import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { requireModel } from '../../src/core/catalog/catalog';
import { quoteGeneration } from '../../src/core/catalog/pricing';
import { deleteExpiredResults } from '../../src/core/generations/media/retention';
import { startWorkers } from '../../src/jobs/workers';
import { syntheticImage, syntheticWav } from '../../src/sandbox/synthetic';
import { multipart } from '../support/multipart';
import { ApiHarness, expectErrorShape, startApi } from './harness';
import { eventually } from '../support/wait';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
  await api.services.boss.start();
  await startWorkers(api.services.boss, api.services);
});
afterAll(() => api.close());

async function pngDataUri(w = 64, h = 64): Promise<string> {
  return `data:image/png;base64,${(await syntheticImage(w, h, 'in')).toString('base64')}`;
}

async function poll(token: string, id: number | string, path = '/api/v2/generate'): Promise<any> {
  return eventually(
    async () => {
      const res = await api.request('GET', `${path}/${id}`, { token });
      expect(res.status).toBe(200);
      return res.body.status === 'pending' ? undefined : res.body;
    },
    20_000,
    `generation ${id} finished`,
  );
}

async function expectBooksBalanced(userId: number) {
  const b = await getBalance(api.db.dataSource, userId);
  expect(await ledgerTotals(api.db.dataSource, userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

test('POST /generate: a synchronous image is completed in the first answer, with a working result_url', async () => {
  const acc = await api.account('basic', { planTokens: 100, bonusTokens: 0 });
  const token = await api.accessToken(acc);
  const res = await api.request('POST', '/api/v2/generate', {
    token,
    body: { model: 'gpt-image-2.6-flare', prompt: 'a lighthouse', size: '1536x1024', format: 'png', quality: 'hd' },
  });
  expect(res.status).toBe(200);
  const g = res.body;
  const cost = quoteGeneration(requireModel('gpt-image-2.6-flare'), { size: '1536x1024', quality: 'hd' });
  expect(g).toMatchObject({
    status: 'completed',
    model_slug: 'gpt-image-2.6-flare',
    error: null,
    result_text: null,
    tokens_spent: cost,
    result_metadata: { width: 1536, height: 1024 },
  });
  expect(Number.isInteger(g.id)).toBe(true);
  expect(Number.isInteger(g.processing_ms)).toBe(true);
  expect(new Date(g.created_at).toISOString()).toBe(g.created_at);
  for (const h of [
    'x-ratelimit-limit-hour',
    'x-ratelimit-remaining-hour',
    'x-ratelimit-limit-day',
    'x-ratelimit-remaining-day',
    'x-ratelimit-reset-hour',
  ]) {
    expect(res.headers.get(h)).toMatch(/^\d+$/);
  }
  const file = await fetch(g.result_url);
  expect(file.status).toBe(200);
  expect(file.headers.get('content-type')).toBe('image/png');
  const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
  expect([meta.width, meta.height]).toEqual([1536, 1024]);
  expect((await api.request('GET', '/api/v2/user/balance', { token })).body.token_balance).toBe(100 - cost);
});

test('an async video is pending with eta_seconds, then polled to completion (gen_<id> accepted); others get 404', async () => {
  const acc = await api.account('basic', { planTokens: 200 });
  const token = await api.accessToken(acc);
  const res = await api.request('POST', '/api/v2/generate', {
    token,
    body: { model: 'kling-v2.1', prompt: 'a dancing robot', image_url: await pngDataUri() },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    status: 'pending',
    result_url: null,
    result_text: null,
    error: null,
    tokens_spent: 0,
    processing_ms: null,
  });
  expect(res.body.eta_seconds).toBeGreaterThan(0);
  const done = await poll(token, `gen_${res.body.id}`);
  expect(done).toMatchObject({ id: res.body.id, status: 'completed' });
  expect((await fetch(done.result_url)).headers.get('content-type')).toBe('video/mp4');

  const other = await api.accessToken(await api.account('basic'));
  expectErrorShape(await api.request('GET', `/api/v2/generate/${res.body.id}`, { token: other }), 404);
});

test('music answers with the spec example aliases and audio fields', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const res = await api.request('POST', '/api/v2/generate', { token, body: { model: 'musicgen', prompt: 'lofi beat', duration: 15 } });
  expect(res.body.status).toBe('pending');
  const done = await poll(token, res.body.id);
  expect(done).toMatchObject({ status: 'completed', type: 'audio', model: 'musicgen', tokens_used: 9, tokens_spent: 9 });
  expect(done.output_url).toBe(done.result_url);
  expect(Number.isInteger(done.duration_seconds)).toBe(true);
});

test('tools answer completed at once; text-ocr in result_text', async () => {
  const acc = await api.account('free', { bonusTokens: 20 });
  const token = await api.accessToken(acc);
  for (const model of ['remove-bg', 'colorize', 'style-transfer', 'upscale']) {
    const body = { model, prompt: model === 'style-transfer' ? 'van gogh' : undefined, params: { image_url: await pngDataUri() } };
    const res = await api.request('POST', '/api/v2/generate', { token, body });
    expect([model, res.status, res.body.status]).toEqual([model, 200, 'completed']);
    expect(res.body.tokens_spent).toBe(1);
  }
  const swap = await api.request('POST', '/api/v2/generate', {
    token,
    body: { model: 'face-swap', params: { source_image_url: await pngDataUri(), target_image_url: await pngDataUri() } },
  });
  expect(swap.body.status).toBe('completed');
  await expectBooksBalanced(acc.user.id);
}, 60_000);

test('documented errors: 402, 403 naming the plan, 400 naming the field, 404 unknown model', async () => {
  const poor = await api.accessToken(await api.account('basic', { planTokens: 0, bonusTokens: 0 }));
  const r402 = await api.request('POST', '/api/v2/generate', { token: poor, body: { model: 'gpt-image-2.6-flare', prompt: 'x' } });
  expectErrorShape(r402, 402, 'insufficient_tokens');
  const starter = await api.accessToken(await api.account('free'));
  const r403 = await api.request('POST', '/api/v2/generate', { token: starter, body: { model: 'gpt-image-2.6-flare', prompt: 'x' } });
  expectErrorShape(r403, 403, 'insufficient_plan');
  expect(r403.body.message).toMatch(/Insufficient plan/);
  expect(r403.body.message).toMatch(/Basic/);
  const r400 = await api.request('POST', '/api/v2/generate', { token: starter, body: { model: 'flux-dev', prompt: 'x', size: '333x333' } });
  expectErrorShape(r400, 400, 'validation_error');
  expect(r400.body.field).toBe('size');
  expectErrorShape(
    await api.request('POST', '/api/v2/generate', { token: starter, body: { model: 'nope', prompt: 'x' } }),
    404,
    'model_not_found',
  );
});

test('SSRF: private, metadata and mapped addresses are refused before anything is charged', async () => {
  const acc = await api.account('free', { bonusTokens: 10 });
  const token = await api.accessToken(acc);
  const redirector = http.createServer((_req, res) => {
    res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
    res.end();
  });
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
  const port = (redirector.address() as AddressInfo).port;
  for (const url of [
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:127.0.0.1]/x.png',
    'http://10.0.0.1/x.png',
    `http://127.0.0.1:${port}/img.png`,
    'file:///etc/passwd',
  ]) {
    const res = await api.request('POST', '/api/v2/generate', { token, body: { model: 'remove-bg', params: { image_url: url } } });
    expect([url, res.status]).toEqual([url, 400]);
  }
  redirector.close();
  expect((await getBalance(api.db.dataSource, acc.user.id)).total).toBe(10);
});

test('Idempotency-Key: 20 parallel identical requests charge once; a different body with the key is 422', async () => {
  const acc = await api.account('basic', { planTokens: 100, bonusTokens: 0 });
  const token = await api.accessToken(acc);
  const body = { model: 'flux-dev', prompt: 'same picture' };
  const headers = { 'Idempotency-Key': 'order-7731' };
  const results = await Promise.all(Array.from({ length: 20 }, () => api.request('POST', '/api/v2/generate', { token, body, headers })));
  const ok = results.filter((r) => r.status === 200);
  expect(ok.length).toBeGreaterThanOrEqual(1);
  for (const r of results) expect([200, 409]).toContain(r.status);
  expect(new Set(ok.map((r) => r.body.id)).size).toBe(1);
  const cost = quoteGeneration(requireModel('flux-dev'), {});
  expect((await getBalance(api.db.dataSource, acc.user.id)).total).toBe(100 - cost);
  const replay = await api.request('POST', '/api/v2/generate', { token, body, headers });
  expect(replay.status).toBe(200);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body.id).toBe(ok[0].body.id);
  expectErrorShape(await api.request('POST', '/api/v2/generate', { token, body: { ...body, prompt: 'other' }, headers }), 422);
  expect((await getBalance(api.db.dataSource, acc.user.id)).total).toBe(100 - cost);
});

test('POST /stt: multipart audio is transcribed; diarization only on vendor-scribe-v2; wrong types refused', async () => {
  const acc = await api.account('basic', { planTokens: 50 });
  const token = await api.accessToken(acc);
  const form = multipart([{ name: 'audio', value: syntheticWav(1), filename: 'a.wav', type: 'audio/wav' }]);
  const res = await api.request('POST', '/api/v2/stt', { token, raw: form.body, headers: { 'Content-Type': form.type } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'completed', model_slug: 'gpt-transcribe', tokens_spent: 2 });
  expect(typeof res.body.result_text).toBe('string');
  expect(Number.isInteger(res.body.processing_ms)).toBe(true);

  const diar = multipart([
    { name: 'audio', value: syntheticWav(1), filename: 'a.wav', type: 'audio/wav' },
    { name: 'model', value: 'vendor-scribe-v2' },
    { name: 'diarize', value: 'true' },
  ]);
  const d = await api.request('POST', '/api/v2/stt', { token, raw: diar.body, headers: { 'Content-Type': diar.type } });
  expect(d.body.result_text).toMatch(/^\[Speaker \d+\]: /m);

  const wrong = multipart([
    { name: 'audio', value: syntheticWav(1), filename: 'a.wav', type: 'audio/wav' },
    { name: 'diarize', value: 'true' },
  ]);
  expectErrorShape(
    await api.request('POST', '/api/v2/stt', { token, raw: wrong.body, headers: { 'Content-Type': wrong.type } }),
    400,
    'validation_error',
  );
  const text = multipart([{ name: 'audio', value: 'not audio at all', filename: 'a.mp3', type: 'audio/mpeg' }]);
  expectErrorShape(await api.request('POST', '/api/v2/stt', { token, raw: text.body, headers: { 'Content-Type': text.type } }), 415);
});

/** Sends a multipart upload of `mb` MiB with raw node:http and resolves with the status the server answered. */
function uploadStatus(token: string, mb: number, declareLength: boolean): Promise<{ status: number; body: string; sentMb: number }> {
  const url = new URL(`${api.baseUrl}/api/v2/stt`);
  const boundary = '----big';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="big.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(1024 * 1024, 1);
  const headers: Record<string, string | number> = {
    Authorization: `Bearer ${token}`,
    'Content-Type': `multipart/form-data; boundary=${boundary}`,
  };
  if (declareLength) headers['Content-Length'] = head.length + tail.length + mb * chunk.length;
  return new Promise((resolve, reject) => {
    let sentMb = 0;
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentMb }));
    });
    req.on('error', (err) => (sentMb > 0 ? undefined : reject(err)));
    req.write(head);
    const pump = () => {
      while (sentMb < mb) {
        sentMb += 1;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

test('POST /stt: a 26 MB upload is refused with 413, declared or streamed, and nothing is charged', async () => {
  const acc = await api.account('basic', { planTokens: 50 });
  const token = await api.accessToken(acc);
  const declared = await uploadStatus(token, 26, true);
  expect(declared.status).toBe(413);
  expect(JSON.parse(declared.body).error).toBe('payload_too_large');
  const chunked = await uploadStatus(token, 26, false);
  expect(chunked.status).toBe(413);
  expect((await getBalance(api.db.dataSource, acc.user.id)).total).toBe(50);
}, 60_000);

test('POST /inpaint: image + mask + prompt, polled through GET /inpaint/{id}', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const image = await syntheticImage(256, 256, 'room');
  const mask = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#000' } })
    .composite([{ input: { create: { width: 64, height: 64, channels: 3, background: '#fff' } }, left: 96, top: 96 }])
    .png()
    .toBuffer();
  const form = multipart([
    { name: 'image', value: image, filename: 'i.png', type: 'image/png' },
    { name: 'mask', value: mask, filename: 'm.png', type: 'image/png' },
    { name: 'prompt', value: 'a red chair' },
  ]);
  const res = await api.request('POST', '/api/v2/inpaint', { token, raw: form.body, headers: { 'Content-Type': form.type } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'completed', model_slug: 'inpaint', tokens_spent: 3 });
  const again = await api.request('GET', `/api/v2/inpaint/${res.body.id}`, { token });
  expect(again.body.id).toBe(res.body.id);
});

test('a result past its retention answers 410', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const res = await api.request('POST', '/api/v2/generate', {
    token,
    body: { model: 'remove-bg', params: { image_url: await pngDataUri() } },
  });
  expect((await fetch(res.body.result_url)).status).toBe(200);
  await api.db.dataSource.query(`UPDATE generations SET expires_at = now() - interval '1 day' WHERE id = $1`, [res.body.id]);
  expect(await deleteExpiredResults(api.db.dataSource, api.services.storage)).toBeGreaterThanOrEqual(1);
  const gone = await fetch(res.body.result_url);
  expect(gone.status).toBe(410);
});

test('POST /generate/stream: generation_start, content_delta..., generation_end with the reconciled charge', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const res = await fetch(`${api.baseUrl}/api/v2/generate/stream`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-6-luna', prompt: 'Tell me a short story about a fox' }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  expect(res.headers.get('x-ratelimit-remaining-hour')).toMatch(/^\d+$/);
  const text = await res.text();
  const events = [...text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((m) => ({ name: m[1], data: JSON.parse(m[2]) }));
  expect(events[0].name).toBe('generation_start');
  expect(events.filter((e) => e.name === 'content_delta').length).toBeGreaterThan(1);
  const end = events[events.length - 1];
  expect(end.name).toBe('generation_end');
  expect(end.data).toMatchObject({ status: 'completed', generation_id: events[0].data.generation_id });
  expect(end.data.tokens_spent).toBeGreaterThanOrEqual(1);
  expect(end.data.balance).toBe(50 - end.data.tokens_spent);
  await expectBooksBalanced(acc.user.id);
});

test('GET /metrics is not served on the public port without METRICS_TOKEN (see surfaces.test.ts)', async () => {
  const res = await fetch(`${api.baseUrl}/metrics`);
  expect(res.status).toBe(404);
});
