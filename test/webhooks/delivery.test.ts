import { Webhook } from 'standardwebhooks';
import { startWorkers } from '../../src/jobs/workers';
import { ApiHarness, startApi } from '../api/harness';
import { deliveriesSettled, eventually, Receiver, startReceiver } from './receiver';

// Real deliveries from the pg-boss workers to a loopback receiver (WEBHOOK_ALLOW_PRIVATE=1).
let api: ApiHarness;
let receiver: Receiver;

beforeAll(async () => {
  api = await startApi({ WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_BASE_MS: '600', PUBLIC_URL: 'https://gen.example.com' });
  await api.services.boss.start();
  await startWorkers(api.services.boss, api.services);
});
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(() => receiver.close());
afterAll(() => api.close());

async function register(token: string, events?: string[], url = receiver.url): Promise<{ id: number; secret: string }> {
  const res = await api.request('POST', '/api/v2/webhooks', { token, body: { url, ...(events ? { events } : {}) } });
  expect(res.status).toBe(201);
  return res.body;
}

test('completed and failed generations arrive signed; standardwebhooks verifies them', async () => {
  const acc = await api.account('basic', { planTokens: 500 });
  const token = await api.accessToken(acc);
  const hook = await register(token);
  const verifier = new Webhook(hook.secret);

  const ok = await api.request('POST', '/api/v2/generate', {
    token,
    body: { model: 'gpt-image-2.6-flare', prompt: 'a lighthouse', size: '1024x1024' },
  });
  expect(ok.body.status).toBe('completed');
  const bad = await api.request('POST', '/api/v2/generate', {
    token,
    body: { model: 'gpt-image-2.6-flare', prompt: 'a lighthouse [[fail:policy]]', size: '1024x1024' },
  });
  expect(bad.body.status).toBe('failed');
  const failedId = bad.body.id as number;

  const got = await receiver.waitFor(2);
  const bodies = got.map((r) => verifier.verify(r.body, r.headers) as Record<string, unknown>);
  const completed = bodies.find((b) => b.event === 'generation.completed')!;
  expect(completed).toEqual({
    event: 'generation.completed',
    generation_id: ok.body.id,
    status: 'completed',
    model_slug: 'gpt-image-2.6-flare',
    result_url: ok.body.result_url,
    result_text: null,
    tokens_spent: ok.body.tokens_spent,
    error: null,
    created_at: expect.any(String),
  });
  expect(completed.result_url).toMatch(/^https:\/\/gen\.example\.com\/files\//);
  const failed = bodies.find((b) => b.event === 'generation.failed')!;
  expect(failed).toMatchObject({
    generation_id: failedId,
    status: 'failed',
    model_slug: 'gpt-image-2.6-flare',
    result_url: null,
    tokens_spent: 0,
  });
  expect(failed.error).toBe(bad.body.error);
  expect((failed.error as string).length).toBeGreaterThan(0);
  for (const r of got) {
    expect(r.headers['webhook-id']).toMatch(/^msg_/);
    expect(r.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
  }
  // A forged body does not verify.
  expect(() => verifier.verify(got[0].body.replace('gpt-image-2.6-flare', 'dall-e-2'), got[0].headers)).toThrow();

  // Each attempt is recorded.
  const deliveries = await eventually(async () => {
    const res = await api.request('GET', `/api/v2/webhooks/${hook.id}/deliveries`, { token });
    return res.body.deliveries.length === 2 ? res.body.deliveries : undefined;
  });
  for (const d of deliveries) {
    expect(d).toMatchObject({ success: true, status_code: 200, response_body: 'ok', attempt: 1, error: null });
    expect(d.latency_ms).toBeGreaterThanOrEqual(0);
    expect(got.map((r) => r.headers['webhook-id'])).toContain(d.webhook_id);
  }
});

test('generations from /v1 chat, a tool and a worker-finished video all reach the same event stream', async () => {
  const acc = await api.account('vip', { planTokens: 2000 });
  const token = await api.accessToken(acc);
  const hook = await register(token, ['generation.completed']);
  const verifier = new Webhook(hook.secret);

  const chat = await api.request('POST', '/v1/chat/completions', {
    token,
    body: { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(chat.status).toBe(200);
  const image = await api.request('POST', '/api/v2/generate', {
    token,
    body: { model: 'gpt-image-2.6-flare', prompt: 'a fox', size: '1024x1024', format: 'png' },
  });
  const tool = await api.request('POST', '/api/v2/generate', {
    token,
    body: { model: 'upscale', params: { image_url: image.body.result_url.replace('https://gen.example.com', api.baseUrl), scale: 2 } },
  });
  expect(tool.body.status).toBe('completed');
  const video = await api.request('POST', '/api/v2/generate', { token, body: { model: 'gemini-omni-1.1-flash', prompt: 'waves' } });
  expect(video.body.status).toBe('pending');

  const got = await receiver.waitFor(4, undefined, 30_000);
  const bodies = got.map((r) => verifier.verify(r.body, r.headers) as Record<string, any>);
  expect(bodies.every((b) => b.event === 'generation.completed')).toBe(true);
  expect(bodies.map((b) => b.model_slug).sort()).toEqual(['gemini-omni-1.1-flash', 'gpt-6-luna', 'gpt-image-2.6-flare', 'upscale']);
  const text = bodies.find((b) => b.model_slug === 'gpt-6-luna')!;
  expect(text.result_text).toBe(chat.body.choices[0].message.content);
  expect(text.tokens_spent).toBe(chat.body.service.tokens_spent);
});

test('POST /webhooks/{id}/test delivers a signed webhook.test event to that endpoint only', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const hook = await register(token, ['balance.low']);
  const other = await startReceiver('/other');
  try {
    const otherHook = await register(token, undefined, other.url);
    const res = await api.request('POST', `/api/v2/webhooks/${hook.id}/test`, { token });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ event: 'webhook.test', webhook_id: expect.stringMatching(/^msg_/) });
    const [got] = await receiver.waitFor(1);
    expect(got.headers['webhook-id']).toBe(res.body.webhook_id);
    expect(new Webhook(hook.secret).verify(got.body, got.headers)).toMatchObject({ event: 'webhook.test', webhook_endpoint_id: hook.id });
    await deliveriesSettled(api.db.dataSource, hook.id);
    await deliveriesSettled(api.db.dataSource, otherHook.id);
    expect(other.received).toHaveLength(0);
  } finally {
    await other.close();
  }
});

test('a receiver answering 500 twice gets the same webhook-id a third time, after growing gaps', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const hook = await register(token);
  receiver.respond = (i) => (i < 2 ? 500 : 204);
  await api.request('POST', `/api/v2/webhooks/${hook.id}/test`, { token });
  const got = await receiver.waitFor(3, undefined, 30_000);
  expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
  expect(new Set(got.map((r) => r.body)).size).toBe(1);
  const gap1 = got[1].at - got[0].at;
  const gap2 = got[2].at - got[1].at;
  // Nominal 600 ms then 2400 ms (±20 %), plus up to one worker polling interval.
  expect(gap1).toBeGreaterThanOrEqual(480);
  expect(gap2).toBeGreaterThanOrEqual(1920);
  expect(gap2).toBeGreaterThan(gap1);
  const verifier = new Webhook(hook.secret);
  for (const r of got) verifier.verify(r.body, r.headers);

  const deliveries = await eventually(async () => {
    const res = await api.request('GET', `/api/v2/webhooks/${hook.id}/deliveries`, { token });
    return res.body.deliveries.length === 3 ? res.body.deliveries : undefined;
  });
  expect(deliveries.map((d: any) => [d.attempt, d.status_code, d.success])).toEqual([
    [3, 204, true],
    [2, 500, false],
    [1, 500, false],
  ]);
  expect(deliveries[1].response_body).toBe('nope 500');
  await deliveriesSettled(api.db.dataSource, hook.id);
  expect(receiver.received).toHaveLength(3);
});

test('a deleted endpoint receives nothing more, pending retries included', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const hook = await register(token);
  receiver.respond = () => 503;
  await api.request('POST', `/api/v2/webhooks/${hook.id}/test`, { token });
  await receiver.waitFor(1);
  expect((await api.request('DELETE', `/api/v2/webhooks/${hook.id}`, { token })).status).toBe(204);
  const before = receiver.received.length;
  await api.services.webhooks.generationFinished(
    Object.assign(Object.create(null), {
      id: 1,
      userId: acc.user.id,
      status: 'completed',
      modelSlug: 'flux-dev',
      tokensSpent: 0,
      resultKey: null,
      resultText: null,
      completedAt: new Date(),
    }),
  );
  await deliveriesSettled(api.db.dataSource, hook.id);
  expect(receiver.received.length).toBe(before);
  const left = await api.db.dataSource.query(
    'SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.user_id = $1',
    [acc.user.id],
  );
  expect(left[0].n).toBe(0);
});

test('balance.low fires once per period when the balance drops below 10 % of the allowance', async () => {
  const plan = (await api.db.dataSource.query(`SELECT monthly_tokens FROM plans WHERE slug = 'basic'`))[0].monthly_tokens as number;
  const acc = await api.account('basic', { planTokens: Math.floor(plan * 0.1) + 3, bonusTokens: 0 });
  const token = await api.accessToken(acc);
  const hook = await register(token, ['balance.low']);
  for (let i = 0; i < 2; i++) {
    const res = await api.request('POST', '/api/v2/generate', {
      token,
      body: { model: 'gpt-image-2.6-flare', prompt: `a fox ${i}`, size: '1024x1024' },
    });
    expect(res.body.status).toBe('completed');
  }
  const [got] = await receiver.waitFor(1);
  const body = new Webhook(hook.secret).verify(got.body, got.headers) as Record<string, any>;
  const balance = (await api.request('GET', '/api/v2/user/balance', { token })).body;
  expect(body).toMatchObject({ event: 'balance.low', plan: 'basic', plan_allowance: plan, threshold: Math.ceil(plan * 0.1) });
  expect(body.token_balance).toBeLessThan(plan * 0.1);
  expect(body.token_balance).toBeGreaterThanOrEqual(balance.token_balance);
  await deliveriesSettled(api.db.dataSource, hook.id);
  expect(receiver.received).toHaveLength(1);
});

test('a paid order on the carrier sandbox sends payment.succeeded', async () => {
  await api.services.payments.connectSandboxNotifications(`${api.baseUrl}/api/v2/payments/carrier/notifications`);
  const acc = await api.account('free', { bonusTokens: 0 });
  const token = await api.accessToken(acc);
  const hook = await register(token, ['payment.succeeded']);
  const res = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'tokens-500' } });
  expect(res.status).toBe(201);
  // The sandbox page is on PUBLIC_URL (gen.example.com here); this instance serves it under the same path.
  const page = `${api.baseUrl}${new URL(res.body.confirmation_url).pathname}/approve`;
  expect((await fetch(page, { method: 'POST', redirect: 'manual' })).status).toBe(303);
  const [got] = await receiver.waitFor(1);
  expect(new Webhook(hook.secret).verify(got.body, got.headers)).toEqual({
    event: 'payment.succeeded',
    order_id: res.body.order_id,
    article_id: 'tokens-500',
    kind: 'tokens',
    amount: 590,
    currency: 'RUB',
    tokens: 500,
    plan: null,
    provider: 'yookassa',
    renewal: false,
    created_at: expect.any(String),
  });
});
