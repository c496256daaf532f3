import { Webhook } from 'standardwebhooks';
import { PgBossWebhookQueue } from '../../src/jobs/webhook-jobs';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { Instance, newAccount, startInstance } from './instances';
import { deliveriesSettled, eventually, Receiver, startReceiver } from './receiver';

// Several service instances on one database, as in a scaled-out deployment.
let db: TestDatabase;
let receiver: Receiver;
const running: Instance[] = [];

async function instance(env: Record<string, string> = {}): Promise<Instance> {
  const i = await startInstance(db.url, env);
  running.push(i);
  return i;
}

async function stop(i: Instance): Promise<void> {
  running.splice(running.indexOf(i), 1);
  await i.stop();
}

beforeAll(async () => {
  db = await createTestDatabase();
});
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((i) => i.stop()));
  await receiver.close();
});
afterAll(() => db.drop());

test('two instances deliver each event exactly once, even when both trigger every delivery', async () => {
  const a = await instance();
  const b = await instance();
  const userId = await newAccount(a.services);
  const endpoint = await a.services.webhooks.endpoints.create(userId, { url: receiver.url });
  const events = 24;
  const sent = await Promise.all(Array.from({ length: events }, (_, i) => (i % 2 ? a : b).services.webhooks.sendTest(userId, endpoint.id)));
  // Every delivery is triggered a second time from the other instance (as a sweep racing a job would).
  const ids = (await db.dataSource.query('SELECT id FROM webhook_deliveries WHERE endpoint_id = $1', [endpoint.id])) as { id: number }[];
  const queues = [new PgBossWebhookQueue(a.services.boss), new PgBossWebhookQueue(b.services.boss)];
  await Promise.all(ids.map(({ id }, i) => queues[i % 2].enqueue(id)));

  await receiver.waitFor(events);
  await deliveriesSettled(db.dataSource, endpoint.id);
  const received = receiver.received.map((r) => r.headers['webhook-id']);
  expect(received).toHaveLength(events);
  expect(new Set(received)).toEqual(new Set(sent.map((s) => s.webhook_id)));
  const verifier = new Webhook(endpoint.secret);
  for (const r of receiver.received) verifier.verify(r.body, r.headers);
  const rows = await db.dataSource.query(
    `SELECT count(*)::int AS deliveries, sum(attempts)::int AS attempts, count(*) FILTER (WHERE state = 'succeeded')::int AS succeeded,
            (SELECT count(*)::int FROM webhook_attempts WHERE endpoint_id = $1) AS recorded
       FROM webhook_deliveries WHERE endpoint_id = $1`,
    [endpoint.id],
  );
  expect(rows[0]).toEqual({ deliveries: events, attempts: events, succeeded: events, recorded: events });
});

test('a restart between attempts still delivers: another instance sends the retry with the same webhook-id', async () => {
  const first = await instance({ WEBHOOK_RETRY_BASE_MS: '2000' });
  const userId = await newAccount(first.services);
  const endpoint = await first.services.webhooks.endpoints.create(userId, { url: receiver.url });
  receiver.respond = (i) => (i === 0 ? 500 : 200);
  const { webhook_id } = await first.services.webhooks.sendTest(userId, endpoint.id);
  await receiver.waitFor(1);
  await eventually(async () => {
    const rows = await db.dataSource.query(`SELECT attempts, state, lease_until FROM webhook_deliveries WHERE message_id = $1`, [
      webhook_id,
    ]);
    return rows[0].attempts === 1 && rows[0].lease_until === null ? rows[0] : undefined;
  });
  await stop(first);
  expect(receiver.received).toHaveLength(1);

  await instance({ WEBHOOK_RETRY_BASE_MS: '2000' });
  const [, retry] = await receiver.waitFor(2);
  expect(retry.headers['webhook-id']).toBe(webhook_id);
  expect(retry.body).toBe(receiver.received[0].body);
  new Webhook(endpoint.secret).verify(retry.body, retry.headers);
  const state = await eventually(async () => {
    const rows = await db.dataSource.query(`SELECT attempts, state FROM webhook_deliveries WHERE message_id = $1`, [webhook_id]);
    return rows[0].state === 'succeeded' ? rows[0] : undefined;
  });
  expect(state).toEqual({ attempts: 2, state: 'succeeded' });
});

test('a delivery whose job was lost is found by the sweep', async () => {
  const i = await instance();
  const userId = await newAccount(i.services);
  const endpoint = await i.services.webhooks.endpoints.create(userId, { url: receiver.url });
  // A delivery stored but never triggered (the process died between the insert and the job).
  await db.dataSource.query(
    `INSERT INTO webhook_deliveries (endpoint_id, message_id, event, payload, next_attempt_at) VALUES ($1, 'msg_lost', 'webhook.test', '{"event":"webhook.test"}', now() - interval '5 minutes')`,
    [endpoint.id],
  );
  expect(await i.services.webhooks.sweep()).toBe(1);
  const [got] = await receiver.waitFor(1);
  expect(got.headers['webhook-id']).toBe('msg_lost');
});

test('after the retry window the endpoint is marked failing and the admins are told, once', async () => {
  const i = await instance({ WEBHOOK_RETRY_BASE_MS: '300', WEBHOOK_RETRY_WINDOW_MS: '2500' });
  const failing: { endpointId: number; attempts: number; lastError: string | null }[] = [];
  i.services.webhooks.onEndpointFailing((e) => failing.push(e));
  const userId = await newAccount(i.services);
  const endpoint = await i.services.webhooks.endpoints.create(userId, { url: receiver.url });
  receiver.respond = () => 502;
  await i.services.webhooks.sendTest(userId, endpoint.id);
  await i.services.webhooks.sendTest(userId, endpoint.id);
  await eventually(async () => {
    const rows = await db.dataSource.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND state = 'failed'`,
      [endpoint.id],
    );
    return rows[0].n === 2 ? true : undefined;
  });
  expect(failing).toHaveLength(1);
  expect(failing[0]).toMatchObject({ endpointId: endpoint.id, lastError: 'HTTP 502' });
  expect(failing[0].attempts).toBeGreaterThanOrEqual(2);
  const [listed] = await i.services.webhooks.endpoints.list(userId);
  expect(listed.status).toBe('failing');
  expect(listed.failing_since).not.toBeNull();
  // Attempts stopped: nothing more arrives.
  const count = receiver.received.length;
  await deliveriesSettled(db.dataSource, endpoint.id);
  expect(receiver.received.length).toBe(count);

  // The next successful delivery makes it active again.
  receiver.respond = () => 200;
  await i.services.webhooks.sendTest(userId, endpoint.id);
  await eventually(async () => ((await i.services.webhooks.endpoints.list(userId))[0].status === 'active' ? true : undefined));
});

test('finished deliveries older than 30 days are purged with their attempts; pending ones stay', async () => {
  const i = await instance();
  const userId = await newAccount(i.services);
  const endpoint = await i.services.webhooks.endpoints.create(userId, { url: receiver.url });
  await i.services.webhooks.sendTest(userId, endpoint.id);
  await receiver.waitFor(1);
  await eventually(async () => {
    const rows = await db.dataSource.query(`SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = $1`, [endpoint.id]);
    return rows[0].n === 1 ? true : undefined;
  });
  await db.dataSource.query(`UPDATE webhook_deliveries SET finished_at = now() - interval '31 days' WHERE endpoint_id = $1`, [endpoint.id]);
  await db.dataSource.query(
    `INSERT INTO webhook_deliveries (endpoint_id, message_id, event, payload, next_attempt_at, created_at) VALUES ($1, 'msg_old_pending', 'webhook.test', '{}', now() + interval '1 hour', now() - interval '40 days')`,
    [endpoint.id],
  );
  expect(await i.services.webhooks.purgeFinished()).toBe(1);
  const left = await db.dataSource.query(
    `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE endpoint_id = $1) AS deliveries, (SELECT count(*)::int FROM webhook_attempts WHERE endpoint_id = $1) AS attempts`,
    [endpoint.id],
  );
  expect(left[0]).toEqual({ deliveries: 1, attempts: 0 });
});
