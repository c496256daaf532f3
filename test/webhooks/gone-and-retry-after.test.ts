// A receiver that answers 410 Gone is disabled at once: no further attempts, no new events. A receiver that answers
// 429/503 with Retry-After is not asked again sooner, within the retry window.
import { parseRetryAfter } from '../../src/core/webhooks/sender';
import { startWorkers } from '../../src/jobs/workers';
import { ApiHarness, startApi } from '../api/harness';
import { Receiver, startReceiver } from './receiver';
import { waitUntil } from '../support/wait';

let api: ApiHarness;
let receiver: Receiver;

beforeAll(async () => {
  api = await startApi({ WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_BASE_MS: '300', WEBHOOK_RETRY_WINDOW_MS: '60000' });
  await api.services.boss.start();
  await startWorkers(api.services.boss, api.services);
});
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(() => receiver.close());
afterAll(() => api.close());

async function register(token: string): Promise<{ id: number; secret: string }> {
  const res = await api.request('POST', '/api/v2/webhooks', { token, body: { url: receiver.url } });
  expect(res.status).toBe(201);
  return res.body;
}

/** Waits until `check` holds (the state it reads reached). */
const until = (check: () => Promise<boolean>, timeoutMs = 30_000) => waitUntil(check, timeoutMs);

const deliveriesOf = (endpointId: number) =>
  api.db.dataSource.query<{ id: number; state: string; attempts: number }[]>(
    'SELECT id, state, attempts FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id',
    [endpointId],
  );

/** Whether the pg-boss job of a delivery attempt scheduled for later has run (and found nothing to send). */
async function retryJobsDone(deliveryId: number): Promise<boolean> {
  const rows = await api.db.dataSource.query<{ state: string }[]>(
    `SELECT state FROM pgboss.job WHERE name = 'webhook-delivery' AND (data->>'deliveryId')::int = $1`,
    [deliveryId],
  );
  return rows.length >= 2 && rows.every((r) => r.state === 'completed');
}

test('410 Gone disables the endpoint at once: its pending retry is dropped, later events are not even queued', async () => {
  const account = await api.account('basic', { planTokens: 500 });
  const token = await api.accessToken(account);
  const hook = await register(token);
  // The test event is told to come back in 10 s, long enough that on a loaded machine its retry cannot overtake the
  // generation event, which then meets 410 first.
  receiver.respond = (_i, req) => (req.body.includes('webhook.test') ? { status: 503, headers: { 'Retry-After': '10' } } : 410);

  expect((await api.request('POST', `/api/v2/webhooks/${hook.id}/test`, { token })).status).toBe(202);
  await receiver.waitFor(1);
  const [retrying] = await deliveriesOf(hook.id);
  expect(retrying.state).toBe('pending');

  const gen = await api.request('POST', '/api/v2/generate', {
    token,
    body: { model: 'gpt-image-2.6-flare', prompt: 'a lighthouse', size: '1024x1024' },
  });
  expect(gen.body.status).toBe('completed');
  await receiver.waitFor(2);
  await until(async () => (await api.request('GET', '/api/v2/webhooks', { token })).body.webhooks[0].status === 'disabled');
  expect((await deliveriesOf(hook.id)).map((d) => d.state)).toEqual(['failed', 'failed']);

  // New events after that: nothing is queued for the endpoint.
  const more = await api.request('POST', '/api/v2/generate', {
    token,
    body: { model: 'gpt-image-2.6-flare', prompt: 'a boat', size: '1024x1024' },
  });
  expect(more.body.status).toBe('completed');
  await api.request('POST', `/api/v2/webhooks/${hook.id}/test`, { token });
  expect(await deliveriesOf(hook.id)).toHaveLength(2);

  // The test event's retry job comes due and finds nothing to send: 0 attempts after the 410.
  await until(() => retryJobsDone(retrying.id));
  expect(receiver.received).toHaveLength(2);
  const attempts = await api.db.dataSource.query('SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = $1', [hook.id]);
  expect(attempts[0].n).toBe(2);
}, 90_000);

test('Retry-After: 2 on 429 is honoured: the retry comes no sooner than 2 s (the backoff alone would be 0.3 s)', async () => {
  const account = await api.account('basic', { planTokens: 500 });
  const token = await api.accessToken(account);
  const hook = await register(token);
  receiver.respond = (i) => (i === 0 ? { status: 429, headers: { 'Retry-After': '2' } } : 200);
  expect((await api.request('POST', `/api/v2/webhooks/${hook.id}/test`, { token })).status).toBe(202);
  const [first, second] = await receiver.waitFor(2);
  expect(second.at - first.at).toBeGreaterThanOrEqual(2000);
  expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
  const [delivery] = await deliveriesOf(hook.id);
  expect(delivery).toMatchObject({ state: 'succeeded', attempts: 2 });
}, 60_000);

test('a Retry-After beyond the retry window ends the delivery instead of waiting past it', async () => {
  const account = await api.account('basic', { planTokens: 500 });
  const token = await api.accessToken(account);
  const hook = await register(token);
  receiver.respond = () => ({ status: 503, headers: { 'Retry-After': '3600' } });
  expect((await api.request('POST', `/api/v2/webhooks/${hook.id}/test`, { token })).status).toBe(202);
  await until(async () => (await deliveriesOf(hook.id))[0]?.state === 'failed');
  expect(receiver.received).toHaveLength(1);
});

test('Retry-After is read as delay-seconds or an HTTP date', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  expect(parseRetryAfter('2', now)).toBe(2000);
  expect(parseRetryAfter('Wed, 25 Nov 2026 12:00:05 GMT', now)).toBe(5000);
  expect(parseRetryAfter('Wed, 25 Nov 2026 11:00:00 GMT', now)).toBe(0);
  expect(parseRetryAfter('soon', now)).toBeNull();
  expect(parseRetryAfter(undefined, now)).toBeNull();
});
