import type { Histogram } from 'prom-client';
import { billingWaitSeconds } from '../../src/core/ops/metrics';
import { accountWithToken, Instance, startInstance } from './instance';
import { createTestDatabase, TestDatabase } from '../support/databases';

// nebula_billing_wait_seconds: what the database adds to each chat answer, one hold and one settlement per answer
// (the bench reads it to say where a single request's time goes).

let db: TestDatabase;
let app: Instance;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startInstance({ databaseUrl: db.url });
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

/** The histogram's count and sum for one step. */
async function observed(h: Histogram, step: string): Promise<{ count: number; sum: number }> {
  const { values } = await h.get();
  const pick = (name: string) => values.find((v) => v.metricName === name && v.labels.step === step)?.value ?? 0;
  return { count: pick('nebula_billing_wait_seconds_count'), sum: pick('nebula_billing_wait_seconds_sum') };
}

const ask = (token: string) =>
  fetch(`${app.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hello' }], max_tokens: 16 }),
  });

test('an answer counts one hold and one settlement, each with the time it waited', async () => {
  const { token } = await accountWithToken(db.dataSource, app, 'vip', 5000);
  const before = { hold: await observed(billingWaitSeconds, 'hold'), settle: await observed(billingWaitSeconds, 'settle') };
  const res = await ask(token);
  expect(res.status).toBe(200);
  await res.json();
  const hold = await observed(billingWaitSeconds, 'hold');
  const settle = await observed(billingWaitSeconds, 'settle');
  expect(hold.count - before.hold.count).toBe(1);
  expect(settle.count - before.settle.count).toBe(1);
  expect(hold.sum).toBeGreaterThan(before.hold.sum);
  expect(settle.sum).toBeGreaterThan(before.settle.sum);
});

test('a hold the balance refuses is timed too, and nothing is settled', async () => {
  const { token } = await accountWithToken(db.dataSource, app, 'vip', 0);
  const before = { hold: await observed(billingWaitSeconds, 'hold'), settle: await observed(billingWaitSeconds, 'settle') };
  const res = await ask(token);
  expect(res.status).toBe(402);
  expect((await observed(billingWaitSeconds, 'hold')).count - before.hold.count).toBe(1);
  expect((await observed(billingWaitSeconds, 'settle')).count).toBe(before.settle.count);
});
