import pino from 'pino';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import type { HostResolver, ResolvedAddress } from '../../src/core/net/safe-fetch';
import type { WebhookQueue } from '../../src/core/webhooks/ports';
import { WebhookService } from '../../src/core/webhooks/service';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { Receiver, startReceiver } from './receiver';

// The SSRF policy for webhook targets, at registration and again on every attempt.
let db: TestDatabase;
let receiver: Receiver;
let answers: Record<string, ResolvedAddress[]>;
const triggered: number[] = [];

const resolve: HostResolver = async (host) => {
  const found = answers[host];
  if (!found) throw new Error(`ENOTFOUND ${host}`);
  return found;
};
const queue: WebhookQueue = { enqueue: async (id) => void triggered.push(id) };

function service(allowPrivate: boolean, timeoutMs = 3000): WebhookService {
  return new WebhookService({
    ds: db.dataSource,
    queue,
    log: pino({ level: 'silent' }),
    resolve,
    settings: {
      allowPrivate,
      requireHttps: false,
      maxEndpoints: 10,
      retry: { baseMs: 1000, windowMs: 60_000 },
      timeoutMs,
      links: { publicUrl: 'https://gen.example.com', listenOrigin: 'http://localhost:3000' },
    },
  });
}

let n = 0;
async function account(): Promise<number> {
  return (await createUser(db.dataSource, new PlanDirectory(db.dataSource), { name: 'S', email: `ssrf${++n}@example.com`, plan: 'free' }))
    .id;
}

async function lastAttempt(endpointId: number) {
  const rows = await db.dataSource.query(
    'SELECT status_code, succeeded, error FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY id DESC LIMIT 1',
    [endpointId],
  );
  return rows[0];
}

beforeAll(async () => {
  db = await createTestDatabase();
});
beforeEach(async () => {
  receiver = await startReceiver();
  answers = {};
  triggered.length = 0;
});
afterEach(() => receiver.close());
afterAll(() => db.drop());

test('registration refuses names that resolve to private addresses, also in a mixed answer; unresolvable names pass', async () => {
  const webhooks = service(false);
  const userId = await account();
  answers['internal.example.com'] = [{ address: '10.0.0.5', family: 4 }];
  answers['mixed.example.com'] = [
    { address: '93.184.215.14', family: 4 },
    { address: '::1', family: 6 },
  ];
  answers['public.example.com'] = [{ address: '93.184.215.14', family: 4 }];
  await expect(webhooks.endpoints.create(userId, { url: 'https://internal.example.com/h' })).rejects.toMatchObject({
    code: 'forbidden_address',
  });
  await expect(webhooks.endpoints.create(userId, { url: 'https://mixed.example.com/h' })).rejects.toMatchObject({
    code: 'forbidden_address',
  });
  await expect(webhooks.endpoints.create(userId, { url: 'https://public.example.com/h' })).resolves.toMatchObject({
    url: 'https://public.example.com/h',
  });
  await expect(webhooks.endpoints.create(userId, { url: 'https://not-yet.example.com/h' })).resolves.toMatchObject({
    url: 'https://not-yet.example.com/h',
  });
});

test('a name that was public at registration but resolves to loopback at delivery is refused, no connection made', async () => {
  const webhooks = service(false);
  const userId = await account();
  const port = new URL(receiver.url).port;
  answers['rebind.example.com'] = [{ address: '93.184.215.14', family: 4 }];
  const endpoint = await webhooks.endpoints.create(userId, { url: `http://rebind.example.com:${port}/hook` });
  answers['rebind.example.com'] = [{ address: '127.0.0.1', family: 4 }];
  await webhooks.sendTest(userId, endpoint.id);
  await webhooks.attempt(triggered[0]);
  expect(receiver.received).toHaveLength(0);
  expect(await lastAttempt(endpoint.id)).toMatchObject({
    status_code: null,
    succeeded: false,
    error: expect.stringMatching(/^refused: .*127\.0\.0\.1 is loopback/),
  });
  // The refusal is retried like any failure (the name may be fixed), never sent.
  expect(triggered).toHaveLength(2);
});

test('a literal private address stored earlier (before the policy) is refused at delivery', async () => {
  const webhooks = service(false);
  const userId = await account();
  const [{ id }] = await db.dataSource.query(
    `INSERT INTO webhook_endpoints (user_id, url, events, secret) VALUES ($1, $2, '{generation.completed}', 'whsec_AAAA') RETURNING id`,
    [userId, receiver.url],
  );
  await webhooks.sendTest(userId, id);
  await webhooks.attempt(triggered[0]);
  expect(receiver.received).toHaveLength(0);
  expect((await lastAttempt(id)).error).toMatch(/^refused: /);
});

test('redirects are not followed: a 307 is a failed attempt and the redirect target gets nothing', async () => {
  const webhooks = service(true);
  const userId = await account();
  const target = await startReceiver('/elsewhere');
  try {
    receiver.respond = () => ({ status: 307, headers: { location: target.url } });
    const endpoint = await webhooks.endpoints.create(userId, { url: receiver.url });
    await webhooks.sendTest(userId, endpoint.id);
    await webhooks.attempt(triggered[0]);
    expect(receiver.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    expect(await lastAttempt(endpoint.id)).toMatchObject({ status_code: 307, succeeded: false, error: 'HTTP 307' });
  } finally {
    await target.close();
  }
});

test('only http(s): a stored URL with another scheme is refused at delivery', async () => {
  const webhooks = service(true);
  const userId = await account();
  const [{ id }] = await db.dataSource.query(
    `INSERT INTO webhook_endpoints (user_id, url, events, secret) VALUES ($1, 'file:///etc/passwd', '{generation.completed}', 'whsec_AAAA') RETURNING id`,
    [userId],
  );
  await webhooks.sendTest(userId, id);
  await webhooks.attempt(triggered[0]);
  expect((await lastAttempt(id)).error).toMatch(/^refused: scheme file: is not allowed/);
});

test('the connection goes to the address that was checked (pinned), with the name kept in the Host header', async () => {
  const webhooks = service(true);
  const userId = await account();
  const port = new URL(receiver.url).port;
  // Real DNS does not know this name: only the checked answer can have been used to connect.
  answers['pinned.invalid'] = [{ address: '127.0.0.1', family: 4 }];
  const endpoint = await webhooks.endpoints.create(userId, { url: `http://pinned.invalid:${port}/hook` });
  await webhooks.sendTest(userId, endpoint.id);
  await webhooks.attempt(triggered[0]);
  expect(receiver.received).toHaveLength(1);
  expect(receiver.received[0].headers.host).toBe(`pinned.invalid:${port}`);
  expect(await lastAttempt(endpoint.id)).toMatchObject({ status_code: 200, succeeded: true });
});

test('an answer that does not come within the time limit is a failed attempt', async () => {
  const webhooks = service(true, 400);
  const userId = await account();
  receiver.respond = () => 'hang';
  const endpoint = await webhooks.endpoints.create(userId, { url: receiver.url });
  await webhooks.sendTest(userId, endpoint.id);
  await webhooks.attempt(triggered[0]);
  expect(receiver.received).toHaveLength(1);
  const attempt = await lastAttempt(endpoint.id);
  expect(attempt).toMatchObject({ status_code: null, succeeded: false, error: 'no answer within 400 ms' });
  expect(triggered).toHaveLength(2);
});
