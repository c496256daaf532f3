import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiApp } from '../../src/api/app';
import { telegramWebhook } from '../../src/bot';
import { telegramLoginHash } from '../../src/core/accounts/telegram-login';
import { quoteGeneration } from '../../src/core/catalog/pricing';
import { requireModel } from '../../src/core/catalog/catalog';
import { GenerationEntity, UserEntity } from '../../src/db/entities';
import { BotHarness, press, startBotHarness } from './harness';

const SECRET = 'webhook-secret-for-tests-0123456789';
let h: BotHarness;
let server: http.Server;
let base: string;

beforeAll(async () => {
  h = await startBotHarness();
  const app = createApiApp(h.engine.services, { telegramWebhook: telegramWebhook(h.app, SECRET) });
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
});

async function api(method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

test('a bot request and an API request on the same account draw on one balance and one set of counters', async () => {
  const user = h.user(4_600_001, { firstName: 'Eve', username: 'eve_api', languageCode: 'en' });
  await h.send(user.text('/start'));

  // The bot: an image (flux-dev, 3 tokens) through the wizard.
  await h.send(user.text('/image'));
  await press(h, user, /:m:flux-dev$/);
  await press(h, user, /:o:1024x1024$/);
  await h.send(user.text('a bot picture'));
  await press(h, user, /:ok$/);
  const price = quoteGeneration(requireModel('flux-dev'), { size: '1024x1024' });

  // The web: the messenger login of the same Telegram user, then POST /api/v2/generate.
  const login = { id: user.id, first_name: 'Eve', username: 'eve_api', auth_date: Math.floor(Date.now() / 1000) };
  const signIn = await api('POST', '/api/v2/auth/messenger', undefined, {
    ...login,
    hash: telegramLoginHash(login, h.engine.services.config.bot.token!),
  });
  expect(signIn.status).toBe(200);
  const token = String(signIn.body.access_token);
  const generated = await api('POST', '/api/v2/generate', token, { model: 'flux-dev', prompt: 'an api picture' });
  expect(generated.status).toBe(200);
  expect(generated.body).toMatchObject({ status: 'completed', tokens_spent: price });
  // One counter: the bot's request and this one are both counted in the hour.
  const plan = await h.engine.services.plans.get('free');
  expect(generated.headers.get('x-ratelimit-remaining-hour')).toBe(String(plan.rateLimitHourly - 2));

  const balance = await api('GET', '/api/v2/user/balance', token);
  expect(balance.body.token_balance).toBe(50 - 2 * price);
  await h.send(user.text('/balance'));
  expect(h.telegram.sentTexts(user.id).pop()).toContain(`Balance: ${50 - 2 * price} tkn`);

  const account = await h.engine.db.dataSource.getRepository(UserEntity).findOneByOrFail({ telegramId: String(user.id) });
  const gens = await h.engine.db.dataSource.getRepository(GenerationEntity).find({ where: { userId: account.id }, order: { id: 'ASC' } });
  expect(gens.map((g) => [g.source, g.tokensSpent])).toEqual([
    ['bot', price],
    ['api', price],
  ]);
});

test('the webhook refuses a missing or wrong secret token and handles an update with the right one', async () => {
  const user = h.user(4_600_002, { languageCode: 'en' });
  const update = user.text('/help');
  const post = (secret?: string) =>
    fetch(`${base}/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(secret !== undefined ? { 'X-Telegram-Bot-Api-Secret-Token': secret } : {}) },
      body: JSON.stringify(update),
    });
  expect((await post()).status).toBe(401);
  expect((await post('wrong-secret')).status).toBe(401);
  expect(h.telegram.sentTexts(user.id)).toHaveLength(0);
  const ok = await post(SECRET);
  expect(ok.status).toBe(200);
  expect(h.telegram.sentTexts(user.id).pop()).toContain('How it works');
  expect(await h.engine.db.dataSource.getRepository(UserEntity).countBy({ telegramId: String(user.id) })).toBe(1);
});
