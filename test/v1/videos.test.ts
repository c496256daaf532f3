import OpenAI, { toFile } from 'openai';
import { startWorkers } from '../../src/jobs/workers';
import { syntheticImage } from '../../src/sandbox/synthetic';
import { ApiHarness, startApi, TestAccount } from '../api/harness';
import { eventually } from '../support/wait';
import { Receiver, startReceiver } from '../webhooks/receiver';

// OpenAI's Videos API (/v1/videos: create, retrieve, content, delete) through the official `openai` SDK, on Google
// and Replicate models: a video job is the pending generation itself, with its price, history, webhooks and ledger.

let api: ApiHarness;
let receiver: Receiver;
let workers: Promise<void> | undefined;
beforeAll(async () => {
  api = await startApi({ WEBHOOK_ALLOW_PRIVATE: '1' });
  await api.services.boss.start();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await api.close();
});

/** Jobs advance once the workers run: the first test sees a job nobody has taken yet. */
const runJobs = () => (workers ??= startWorkers(api.services.boss, api.services));

async function client(): Promise<{ openai: OpenAI; key: string; account: TestAccount }> {
  const account = await api.account('vip', { planTokens: 1000, bonusTokens: 0 });
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

async function finished(openai: OpenAI, id: string): Promise<OpenAI.Videos.Video> {
  return eventually(async () => {
    const video = await openai.videos.retrieve(id);
    return video.status === 'completed' || video.status === 'failed' ? video : undefined;
  }, 30_000);
}

async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

test('a job nobody has taken yet is queued: its content and its deletion wait (409)', async () => {
  const { openai } = await client();
  const job = await openai.videos.create({ model: 'gemini-omni-1.1-flash', prompt: 'waves' });
  expect(job).toMatchObject({ object: 'video', status: 'queued', progress: 0, model: 'gemini-omni-1.1-flash', seconds: '8' });
  expect((await openai.videos.retrieve(job.id)).status).toBe('queued');
  const content = await refusal(openai.videos.downloadContent(job.id));
  expect([content.status, content.code]).toEqual([409, 'generation_pending']);
  const removal = await refusal(openai.videos.delete(job.id));
  expect(removal.status).toBe(409);
});

test('create, poll, download, delete on a Google model: charged what calculate-price quotes, in history and webhooks', async () => {
  await runJobs();
  const { openai, key, account } = await client();
  const hook = await api.request('POST', '/api/v2/webhooks', { token: key, body: { url: receiver.url, events: ['generation.completed'] } });
  expect(hook.status).toBe(201);
  const job = await openai.videos.create({
    model: 'gemini-omni-1.1-flash',
    prompt: 'a lighthouse in a storm',
    seconds: '4',
    size: '1280x720',
  });
  expect(['queued', 'in_progress']).toContain(job.status);
  expect(job.size).toBe('16:9');
  const done = await finished(openai, job.id);
  expect(done).toMatchObject({ status: 'completed', progress: 100, seconds: '4', error: null, prompt: 'a lighthouse in a storm' });
  expect(done.completed_at).toEqual(expect.any(Number));

  const file = await openai.videos.downloadContent(job.id);
  expect(file.headers.get('content-type')).toBe('video/mp4');
  const bytes = Buffer.from(await file.arrayBuffer());
  expect(bytes.subarray(4, 8).toString()).toBe('ftyp');

  expect(await chargedInLedger(account.user.id)).toBe(
    await quote(key, 'gemini-omni-1.1-flash', { prompt: 'x', duration: 4, size: '16:9' }),
  );
  const generationId = Number(job.id.replace('video_', ''));
  const history = await api.request('GET', '/api/v2/user/history', { token: key });
  expect(history.body.items).toEqual(expect.arrayContaining([expect.objectContaining({ id: generationId, status: 'completed' })]));
  const [event] = await receiver.waitFor(1, (r) => JSON.parse(r.body).generation_id === generationId);
  expect(JSON.parse(event.body)).toMatchObject({ event: 'generation.completed', model_slug: 'gemini-omni-1.1-flash' });

  const resultUrl = (await api.request('GET', `/api/v2/generate/${generationId}`, { token: key })).body.result_url as string;
  expect(await openai.videos.delete(job.id)).toEqual({ id: job.id, object: 'video.deleted', deleted: true });
  expect((await refusal(openai.videos.retrieve(job.id))).status).toBe(404);
  expect((await refusal(openai.videos.downloadContent(job.id))).status).toBe(404);
  // The generation stays in the history, deleted as DELETE /api/v2/generate/{id} deletes it: its file is gone.
  const kept = await api.request('GET', `/api/v2/generate/${generationId}`, { token: key });
  expect(kept.body).toMatchObject({ status: 'completed', tokens_spent: expect.any(Number), deleted_at: expect.any(String) });
  expect((await fetch(resultUrl)).status).toBe(410);
});

test('a Replicate model animates the first frame sent as a file; another ignores it and says so', async () => {
  await runJobs();
  const { openai, key, account } = await client();
  const frame = await toFile(await syntheticImage(256, 256, 'first frame'), 'frame.png', { type: 'image/png' });
  const kling = await openai.videos
    .create({ model: 'kling-v2.1', prompt: 'the cat turns its head', input_reference: frame, seconds: '4' })
    .withResponse();
  // Kling makes 5 or 10 seconds: 4 gives way to 5 and is named; the frame decides the size.
  expect(kling.response.headers.get('x-ignored-parameters')).toBe('seconds');
  expect((await finished(openai, kling.data.id)).status).toBe('completed');
  const wan = await openai.videos
    .create({ model: 'wan-2.2', prompt: 'rain', input_reference: { image_url: 'https://example.com/frame.png' } })
    .withResponse();
  expect(wan.response.headers.get('x-ignored-parameters')).toBe('input_reference');
  expect((await finished(openai, wan.data.id)).status).toBe('completed');
  const kPrice = await quote(key, 'kling-v2.1', { prompt: 'x', duration: 5, image_url: 'https://example.com/f.png' });
  expect(await chargedInLedger(account.user.id)).toBe(kPrice + (await quote(key, 'wan-2.2', { prompt: 'x' })));
});

test('a failed job says why and costs nothing', async () => {
  await runJobs();
  const { openai, account } = await client();
  const job = await openai.videos.create({ model: 'gemini-omni-1.1-flash', prompt: 'boom [[fail:upstream]]' });
  const done = await finished(openai, job.id);
  expect(done.status).toBe('failed');
  expect(done.error).toEqual({ code: 'upstream_error', message: expect.any(String) });
  expect(await chargedInLedger(account.user.id)).toBe(0);
});

test('refusals: seconds or a size no video model offers, a missing first frame, other accounts’ jobs', async () => {
  const { openai } = await client();
  const seconds = await refusal(openai.videos.create({ model: 'gemini-omni-1.1-flash', prompt: 'x', seconds: '12' }));
  expect([seconds.status, seconds.param]).toEqual([400, 'seconds']);
  const size = await refusal(openai.videos.create({ model: 'gemini-omni-1.1-flash', prompt: 'x', size: '5:4' as never }));
  expect([size.status, size.param]).toEqual([400, 'size']);
  const frame = await refusal(openai.videos.create({ model: 'kling-v2.1', prompt: 'x' }));
  expect([frame.status, frame.param]).toEqual([400, 'input_reference']);
  const empty = await refusal(openai.videos.create({ model: 'wan-2.2', prompt: '' }));
  expect([empty.status, empty.param]).toEqual([400, 'prompt']);

  const job = await openai.videos.create({ model: 'wan-2.2', prompt: 'mine' });
  const stranger = (await client()).openai;
  expect((await refusal(stranger.videos.retrieve(job.id))).status).toBe(404);
  expect((await refusal(stranger.videos.delete(job.id))).status).toBe(404);
  expect((await refusal(openai.videos.retrieve('video_abc'))).status).toBe(404);
});

test('videos.list pages through the caller’s jobs, newest first; deleted ones and other accounts’ are left out', async () => {
  await runJobs();
  const { openai } = await client();
  const made = [];
  for (const prompt of ['one', 'two', 'three']) made.push(await openai.videos.create({ model: 'wan-2.2', prompt }));
  await finished(openai, made[0]!.id);
  await openai.videos.delete(made[0]!.id);
  const seen: string[] = [];
  for await (const video of openai.videos.list({ limit: 1 })) seen.push(video.id);
  expect(seen).toEqual([made[2]!.id, made[1]!.id]);
  const oldest = await openai.videos.list({ order: 'asc' });
  expect(oldest.data.map((v) => v.prompt)).toEqual(['two', 'three']);
  expect((await (await client()).openai.videos.list()).data).toEqual([]);
});
