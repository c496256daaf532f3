// An identity-provider takeover of an unverified account removes what its registrant set up: the squatter who
// registered victim@x with a password, added a webhook to their own server, a 15-minute schedule and an assistant,
// keeps nothing once the victim signs in with the verified email.
import crypto from 'node:crypto';
import { telegramLoginHash } from '../../src/core/accounts/telegram-login';
import { startWorkers } from '../../src/jobs/workers';
import { startOidcProvider, type OidcProvider } from '../support/oidc-provider';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { ApiHarness, BOT_TOKEN, expectErrorShape, startApi } from './harness';

let idp: OidcProvider;
let api: ApiHarness;
let squatterServer: Receiver;
let victimServer: Receiver;

beforeAll(async () => {
  idp = await startOidcProvider();
  api = await startApi({ ...idp.env, WEBHOOK_ALLOW_PRIVATE: '1', PUBLIC_URL: 'https://gen.example.com' });
  await api.services.boss.start();
  await startWorkers(api.services.boss, api.services);
  squatterServer = await startReceiver('/squatter');
  victimServer = await startReceiver('/victim');
});
afterAll(async () => {
  await squatterServer.close();
  await victimServer.close();
  await api.close();
  await idp.close();
});

const count = async (sql: string, userId: number): Promise<number> => (await api.db.dataSource.query(sql, [userId]))[0].n;

test('the takeover removes webhooks (and pending deliveries), schedules, own assistants, saved cards, name and settings', async () => {
  const email = `victim-${crypto.randomBytes(3).toString('hex')}@example.com`;
  const reg = await api.request('POST', '/api/v2/auth/register', { body: { email, password: 'squatter password', name: 'Squatter' } });
  expect(reg.status).toBe(201);
  const userId: number = reg.body.user.id;
  const token: string = reg.body.access_token;

  // The squatter's setup, each piece through the API where one exists.
  const hook = await api.request('POST', '/api/v2/webhooks', { token, body: { url: squatterServer.url } });
  expect(hook.status).toBe(201);
  expect((await api.request('POST', `/api/v2/webhooks/${hook.body.id}/test`, { token })).status).toBe(202);
  await squatterServer.waitFor(1);
  const schedule = await api.request('POST', '/api/v2/schedules', {
    token,
    body: { name: 'drain', request: { model: 'flux-dev', prompt: 'x' }, interval_minutes: 15 },
  });
  expect(schedule.status).toBe(201);
  const assistant = await api.request('POST', '/api/v2/assistants', { token, body: { name: 'Spy', model_slug: 'gpt-6-luna' } });
  expect(assistant.status).toBe(201);
  expect((await api.request('PATCH', '/api/v2/user/settings', { token, body: { language: 'ru', image_format: 'png' } })).status).toBe(200);
  await api.db.dataSource.query(
    `INSERT INTO saved_payment_methods (user_id, provider, method_id, title) VALUES ($1, 'yookassa', 'pm-squatter', 'Squatter card')`,
    [userId],
  );
  // A delivery still waiting for its next attempt when the takeover happens.
  const [pending] = await api.db.dataSource.query(
    `INSERT INTO webhook_deliveries (endpoint_id, message_id, event, payload, next_attempt_at)
     VALUES ($1, 'msg_pending', 'generation.completed', '{}', now() + interval '1 hour') RETURNING id`,
    [hook.body.id],
  );

  const signIn = await api.request('POST', '/api/v2/auth/idp', {
    body: { id_token: await idp.idToken({ claims: { email, name: 'Victim Person' } }) },
  });
  expect(signIn.status).toBe(200);
  expect(signIn.body.user).toMatchObject({ id: userId, name: 'Victim Person' });
  const victim: string = signIn.body.access_token;

  expect((await api.request('GET', '/api/v2/webhooks', { token: victim })).body.webhooks).toEqual([]);
  expect((await api.request('GET', '/api/v2/schedules', { token: victim })).body.schedules).toEqual([]);
  expect((await api.request('GET', '/api/v2/assistants/user', { token: victim })).body).toEqual([]);
  expect((await api.request('GET', '/api/v2/user/me', { token: victim })).body).toMatchObject({ name: 'Victim Person', avatar_url: null });
  expect((await api.request('GET', '/api/v2/user/settings', { token: victim })).body).toMatchObject({
    language: 'en',
    image_format: 'webp',
  });
  expect(await count('SELECT count(*)::int AS n FROM saved_payment_methods WHERE user_id = $1', userId)).toBe(0);
  expect(await count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = $1', pending.id)).toBe(0);
  // A queued attempt of the removed delivery sends nothing.
  await api.services.webhooks.attempt(pending.id);

  // A generation of the victim reaches the victim's own new endpoint, and nothing reaches the squatter's.
  const own = await api.request('POST', '/api/v2/webhooks', { token: victim, body: { url: victimServer.url } });
  expect(own.status).toBe(201);
  const gen = await api.request('POST', '/api/v2/generate', { token: victim, body: { model: 'flux-dev', prompt: 'a lighthouse' } });
  expect(gen.status).toBeLessThan(300);
  const [completed] = await victimServer.waitFor(1, (r) => r.body.includes('"generation.completed"'));
  expect(JSON.parse(completed.body)).toMatchObject({ generation_id: gen.body.id });
  // The deliveries of one event are inserted in one statement: had the squatter's endpoint survived, its row would exist.
  expect(await count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', hook.body.id)).toBe(0);
  expect(squatterServer.received).toHaveLength(1);
  expect(JSON.parse(squatterServer.received[0].body).event).toBe('webhook.test');
});

test('the takeover also ends the squatter’s session and unlinks what only an operator attaches: Telegram, a phone', async () => {
  const email = `victim-${crypto.randomBytes(3).toString('hex')}@example.com`;
  const reg = await api.request('POST', '/api/v2/auth/register', { body: { email, password: 'squatter password' } });
  expect(reg.status).toBe(201);
  const userId: number = reg.body.user.id;
  const squatter: string = reg.body.access_token;
  // An unverified account with a Telegram link and a phone: `nebula-gen user:create --email … --telegram-id …`.
  const telegramId = 400000 + crypto.randomInt(1_000_000);
  const phone = `+4420${crypto.randomInt(10_000_000, 99_999_999)}`;
  await api.db.dataSource.query(`UPDATE users SET telegram_id = $2, messenger_username = 'squatter', phone = $3 WHERE id = $1`, [
    userId,
    String(telegramId),
    phone,
  ]);
  // A checkout started to save the squatter's card with the account, not paid yet.
  const checkout = await api.request('POST', '/api/v2/payments/carrier/initiate', {
    token: squatter,
    body: { article_id: 'tokens-100', save_payment_method: true },
  });
  expect(checkout.status).toBe(201);

  const signIn = await api.request('POST', '/api/v2/auth/idp', { body: { id_token: await idp.idToken({ claims: { email } }) } });
  expect(signIn.body.user).toMatchObject({ id: userId });

  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: squatter }), 401, 'invalid_token');
  const me = (await api.request('GET', '/api/v2/user/me', { token: signIn.body.access_token })).body;
  expect(me).toMatchObject({ messenger_username: null, auth_methods: { messenger: false, identity_provider: true, email: false } });
  const [row] = await api.db.dataSource.query('SELECT telegram_id, phone FROM users WHERE id = $1', [userId]);
  expect(row).toEqual({ telegram_id: null, phone: null });
  const [order] = await api.db.dataSource.query('SELECT status, save_payment_method FROM payment_orders WHERE user_id = $1', [userId]);
  expect(order).toEqual({ status: 'pending', save_payment_method: false });

  // That Telegram user signing in now gets an account of their own, not the victim's.
  const widget = { id: telegramId, first_name: 'Squatter', auth_date: Math.floor(Date.now() / 1000) - 30 };
  const messenger = await api.request('POST', '/api/v2/auth/messenger', {
    body: { ...widget, hash: telegramLoginHash(widget, BOT_TOKEN) },
  });
  expect(messenger.status).toBe(200);
  expect(messenger.body.user.id).not.toBe(userId);
});
