import { startWorkers } from '../../src/jobs/workers';
import { ApiHarness, startApi } from '../api/harness';
import { Receiver, startReceiver } from './receiver';
import { waitUntil } from '../support/wait';

// Each instance keeps in memory which events an account subscribed to (read on every finished generation). An
// endpoint registered or deleted through one instance must count at once on another.

let a: ApiHarness;
let b: ApiHarness;
let receiver: Receiver;

beforeAll(async () => {
  a = await startApi({ WEBHOOK_ALLOW_PRIVATE: '1' });
  b = await startApi({ WEBHOOK_ALLOW_PRIVATE: '1' }, { sameDatabaseAs: a });
  for (const api of [a, b]) {
    await api.services.boss.start();
    await startWorkers(api.services.boss, api.services);
  }
  receiver = await startReceiver();
  await waitUntil(() => a.services.accountChanges.live && b.services.accountChanges.live, 5000, 'both change feeds listening');
});
afterAll(async () => {
  await receiver?.close();
  await b?.close();
  await a?.close();
});

async function chatOn(api: ApiHarness, key: string): Promise<number> {
  const res = await api.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hello' }], max_tokens: 20 },
  });
  expect(res.status).toBe(200);
  const rows: { id: number }[] = await a.db.dataSource.query('SELECT max(id) AS id FROM generations');
  return rows[0].id;
}

test('an endpoint registered on A receives the events of answers B finishes, and stops when deleted on A', async () => {
  const account = await a.account('vip', { planTokens: 10_000 });
  const key = await a.apiKey(account);
  const token = await a.accessToken(account);
  // B answers once with no endpoint registered: it now holds "no subscriptions" for the account.
  await chatOn(b, key);

  // B drops what it held when its listener delivers the NOTIFY of the change (an event the test waits for).
  let heardOnB = b.services.accountChanges.expect(account.user.id, 5000);
  const hook = await a.request('POST', '/api/v2/webhooks', { token, body: { url: receiver.url, events: ['generation.completed'] } });
  expect(hook.status).toBe(201);
  await heardOnB;
  const generationId = await chatOn(b, key);
  const [got] = await receiver.waitFor(1);
  expect(JSON.parse(got.body)).toMatchObject({ event: 'generation.completed', generation_id: generationId });

  heardOnB = b.services.accountChanges.expect(account.user.id, 5000);
  expect((await a.request('DELETE', `/api/v2/webhooks/${hook.body.id}`, { token })).status).toBe(204);
  await heardOnB;
  await chatOn(b, key);
  const deliveries: { n: number }[] = await a.db.dataSource.query(
    'SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.user_id = $1',
    [account.user.id],
  );
  expect(deliveries[0].n).toBe(0);
  expect(receiver.received).toHaveLength(1);
});
