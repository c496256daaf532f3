// Broadcasts end to end: an admin sends through the console's route; the bot (the real grammY client) sends through
// a fake Bot API where one user blocked the bot (403) and Telegram answers one 429 with retry_after; the process
// "restarts" mid-way (the bot stops, a new one starts on the same database). Every reachable user gets exactly one
// message, the blocked one is marked, the counts add up, and the audit log has the create and the cancel.
import { createBot, type TelegramBot } from '../../src/bot';
import { ApiHarness, BOT_TOKEN, expectErrorShape, startApi, type TestAccount } from '../api/harness';
import { BOT_INFO, FakeTelegram } from '../bot/fake-telegram';
import { TestUser } from '../bot/updates';
import { waitUntil } from '../support/wait';

let telegram: FakeTelegram;
let api: ApiHarness;
let admin: TestAccount;
let adminToken: string;
const bots: TelegramBot[] = [];

const TELEGRAM_IDS = [710001, 710002, 710003, 710004, 710005, 710006, 710007, 710008];
const BLOCKER = 710004;

beforeAll(async () => {
  telegram = await FakeTelegram.start(BOT_TOKEN);
  // Five a second: slow enough to stop the bot between two messages.
  api = await startApi({ TELEGRAM_API_ROOT: telegram.url, BROADCAST_MESSAGES_PER_SECOND: '5' });
  admin = await api.account('vip');
  await api.db.dataSource.query('UPDATE users SET is_admin = true WHERE id = $1', [admin.user.id]);
  adminToken = await api.accessToken(admin);
});
afterAll(async () => {
  for (const b of bots) await b.stop();
  await api.close();
  await telegram.close();
});

const ds = () => api.db.dataSource;
function startBot(): TelegramBot {
  const bot = createBot(BOT_TOKEN, api.services, { apiRoot: telegram.url, botInfo: BOT_INFO });
  bots.push(bot);
  bot.attach();
  return bot;
}
async function botUser(telegramId: number, plan: 'free' | 'pro' = 'free', language = 'en'): Promise<number> {
  const a = await api.account(plan);
  await ds().query('UPDATE users SET telegram_id = $2 WHERE id = $1', [a.user.id, telegramId]);
  await ds().query(`INSERT INTO user_settings (user_id, language) VALUES ($1, $2) ON CONFLICT (user_id) DO UPDATE SET language = $2`, [
    a.user.id,
    language,
  ]);
  return a.user.id;
}
const delivered = (text: string) =>
  telegram.calls
    .filter((c) => c.method === 'sendMessage' && c.payload.text === text && c.result !== undefined)
    .map((c) => Number(c.payload.chat_id));
const broadcast = async (id: number) => (await api.request('GET', `/api/v2/admin/broadcasts/${id}`, { token: adminToken })).body;

test('through a 403, a 429 and a restart, every reachable user gets exactly one message', async () => {
  const ids = new Map<number, number>();
  for (const tg of TELEGRAM_IDS) ids.set(tg, await botUser(tg));
  telegram.blockBot(BLOCKER);
  telegram.failNext('sendMessage', { error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } });

  const text = 'We added a new model <b>today</b> & more: try /model';
  const created = await api.request('POST', '/api/v2/admin/broadcasts', { token: adminToken, body: { text } });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ status: 'queued', total: 8, sent: 0, pending: 8 });
  const id = created.body.id as number;

  const first = startBot();
  await waitUntil(() => delivered(text).length >= 3, 20_000, 'three messages sent');
  await first.stop();
  const atStop = delivered(text).length;
  expect(atStop).toBeLessThan(7);
  const mid = await broadcast(id);
  expect(mid.status).toBe('sending');
  expect(mid.pending).toBeGreaterThan(0);

  startBot();
  await waitUntil(async () => (await broadcast(id)).status === 'done', 20_000, 'the broadcast done');

  const got = delivered(text);
  const reachable = TELEGRAM_IDS.filter((t) => t !== BLOCKER);
  expect([...got].sort()).toEqual([...reachable].sort());
  // Sent as written: plain text, nothing parsed away.
  const call = telegram.calls.find((c) => c.method === 'sendMessage' && c.payload.text === text)!;
  expect(call.payload.parse_mode).toBeUndefined();
  // The 429 was honoured: the next attempt came at least retry_after later.
  const attempts = telegram.calls.filter((c) => c.method === 'sendMessage' && c.payload.text === text);
  expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(950);

  expect(await broadcast(id)).toMatchObject({ status: 'done', total: 8, sent: 7, blocked: 1, failed: 0, pending: 0 });
  const [marked] = await ds().query('SELECT bot_blocked_at FROM users WHERE id = $1', [ids.get(BLOCKER)]);
  expect(marked.bot_blocked_at).not.toBeNull();

  // The user who blocked the bot is left out of the next broadcast; the list shows both, newest first.
  const next = await api.request('POST', '/api/v2/admin/broadcasts', { token: adminToken, body: { text: 'second' } });
  expect(next.body.total).toBe(7);
  await waitUntil(async () => (await broadcast(next.body.id)).status === 'done', 20_000, 'the second broadcast done');
  const list = await api.request('GET', '/api/v2/admin/broadcasts', { token: adminToken });
  expect(list.body.items.map((b: { id: number }) => b.id)).toEqual([next.body.id, id]);

  const audit = await api.request('GET', '/api/v2/admin/audit?action=broadcast.*', { token: adminToken });
  expect(audit.body.items.filter((a: { action: string }) => a.action === 'broadcast.create')).toHaveLength(2);

  // They unblock the bot and write to it: broadcasts reach them again.
  telegram.unblockBot(BLOCKER);
  await bots[bots.length - 1]!.bot.handleUpdate(new TestUser(BLOCKER).text('hello again'));
  const [unmarked] = await ds().query('SELECT bot_blocked_at FROM users WHERE id = $1', [ids.get(BLOCKER)]);
  expect(unmarked.bot_blocked_at).toBeNull();
  const third = await api.request('POST', '/api/v2/admin/broadcasts', { token: adminToken, body: { text: 'third' } });
  expect(third.body.total).toBe(8);
  await waitUntil(async () => (await broadcast(third.body.id)).status === 'done', 20_000, 'the third broadcast done');
});

test('segments choose by plan, language and activity; cancel stops the rest', async () => {
  for (const b of bots.splice(0)) await b.stop();
  const pro = await botUser(720001, 'pro', 'ru');
  await botUser(720002, 'pro', 'en');
  await botUser(720003, 'free', 'ru');
  const segment = async (s: object) =>
    (await api.request('POST', '/api/v2/admin/broadcasts', { token: adminToken, body: { text: `seg ${JSON.stringify(s)}`, segment: s } }))
      .body;
  expect((await segment({ plans: ['pro'], language: 'ru' })).total).toBe(1);
  expect((await segment({ plans: ['pro'] })).total).toBe(2);
  await ds().query(
    `INSERT INTO generations (user_id, model_slug, category, status, source) VALUES ($1, 'gpt-6-luna', 'text', 'completed', 'bot')`,
    [pro],
  );
  expect((await segment({ plans: ['pro'], active_days: 7 })).total).toBe(1);

  // Nobody sends (no bot running): cancel stops it; a second cancel is a 409.
  const open = await segment({});
  expect(open.status).toBe('queued');
  const canceled = await api.request('POST', `/api/v2/admin/broadcasts/${open.id}/cancel`, { token: adminToken });
  expect(canceled.status).toBe(200);
  expect(canceled.body).toMatchObject({ status: 'canceled', sent: 0, pending: 0 });
  expectErrorShape(
    await api.request('POST', `/api/v2/admin/broadcasts/${open.id}/cancel`, { token: adminToken }),
    409,
    'broadcast_finished',
  );
  const sentBefore = telegram.calls.length;
  startBot();
  // The other open segment broadcasts go; the canceled one never does.
  await waitUntil(
    async () =>
      (await api.request('GET', '/api/v2/admin/broadcasts', { token: adminToken })).body.items.every(
        (b: { status: string }) => b.status === 'done' || b.status === 'canceled',
      ),
    20_000,
    'all finished',
  );
  expect(telegram.calls.slice(sentBefore).some((c) => c.payload.text === 'seg {}')).toBe(false);
  const audit = await api.request('GET', '/api/v2/admin/audit?action=broadcast.cancel', { token: adminToken });
  expect(audit.body.items.map((a: { target: { id: string } }) => a.target.id)).toContain(String(open.id));
});

test('a claim a dead process left behind is failed as interrupted, never sent again', async () => {
  for (const b of bots.splice(0)) await b.stop();
  await botUser(730001);
  const created = await api.request('POST', '/api/v2/admin/broadcasts', {
    token: adminToken,
    body: { text: 'after a crash', segment: { plans: ['free'] } },
  });
  const id = created.body.id as number;
  // As if a process claimed this recipient, called Telegram and died before recording the answer.
  const [victim] = await ds()
    .query(
      `UPDATE broadcast_recipients SET status = 'sending', claimed_at = now() - interval '10 minutes'
      WHERE broadcast_id = $1 AND user_id = (SELECT min(user_id) FROM broadcast_recipients WHERE broadcast_id = $1) RETURNING user_id, chat_id`,
      [id],
    )
    .then((r: [{ user_id: number; chat_id: string }[], number]) => r[0]);
  await ds().query(`UPDATE broadcasts SET status = 'sending' WHERE id = $1`, [id]);
  startBot();
  await waitUntil(async () => (await broadcast(id)).status === 'done', 20_000, 'the broadcast done');
  expect(delivered('after a crash')).not.toContain(Number(victim.chat_id));
  const b = await broadcast(id);
  expect(b.failed).toBe(1);
  expect(b.sent).toBe(b.total - b.failed - b.blocked);
  const [row] = await ds().query('SELECT status, error FROM broadcast_recipients WHERE broadcast_id = $1 AND user_id = $2', [
    id,
    victim.user_id,
  ]);
  expect(row).toEqual({ status: 'failed', error: expect.stringMatching(/^interrupted/) });
});

test.each([
  ['an empty text', { text: '   ' }],
  ['a text over 4,096 characters', { text: 'x'.repeat(4097) }],
  ['an unknown plan', { text: 'hi', segment: { plans: ['platinum'] } }],
  ['a bad language', { text: 'hi', segment: { language: 'de' } }],
  ['active_days out of range', { text: 'hi', segment: { active_days: 0 } }],
])('%s: 400, nothing made, nothing audited', async (_label, body) => {
  const count = async () => Number((await ds().query('SELECT count(*)::int AS n FROM broadcasts'))[0].n);
  const audits = async () =>
    Number((await ds().query(`SELECT count(*)::int AS n FROM admin_audit_log WHERE action LIKE 'broadcast.%'`))[0].n);
  const [b, a] = [await count(), await audits()];
  expectErrorShape(await api.request('POST', '/api/v2/admin/broadcasts', { token: adminToken, body }), 400, 'validation_error');
  expect([await count(), await audits()]).toEqual([b, a]);
});

test('a non-admin and an admin’s API key get 403; an unknown broadcast is 404', async () => {
  const user = await api.accessToken(await api.account('free'));
  expectErrorShape(await api.request('POST', '/api/v2/admin/broadcasts', { token: user, body: { text: 'x' } }), 403, 'admin_required');
  expectErrorShape(await api.request('GET', '/api/v2/admin/broadcasts', { token: await api.apiKey(admin) }), 403, 'admin_required');
  expectErrorShape(await api.request('GET', '/api/v2/admin/broadcasts/999999', { token: adminToken }), 404, 'not_found');
});
