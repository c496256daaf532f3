import { telegramLoginHash } from '../../src/core/accounts/telegram-login';
import { getBalance } from '../../src/core/billing/ledger';
import { UserEntity, UserSettingsEntity } from '../../src/db/entities';
import { BotHarness, buttonsOf, startBotHarness } from './harness';

const ADMIN = 900_001;
let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness({ adminIds: [ADMIN] });
});
afterAll(() => h.close());

test('/start creates a Starter account with the 50-token grant, in the Telegram language, and tells the admins', async () => {
  const user = h.user(4_100_001, { firstName: 'Ivan', username: 'ivan_t', languageCode: 'ru-RU' });
  await h.send(user.text('/start'));

  const repo = h.engine.db.dataSource.getRepository(UserEntity);
  const account = await repo.findOneByOrFail({ telegramId: String(user.id) });
  expect(account).toMatchObject({ planSlug: 'free', name: 'Ivan', messengerUsername: 'ivan_t' });
  const balance = await getBalance(h.engine.db.dataSource, account.id);
  expect(balance).toMatchObject({ planTokens: 0, bonusTokens: 50, total: 50 });
  const settings = await h.engine.db.dataSource.getRepository(UserSettingsEntity).findOneByOrFail({ userId: account.id });
  expect(settings.language).toBe('ru');

  const welcome = h.telegram.callsOf('sendMessage').find((c) => Number(c.payload.chat_id) === user.id)!;
  expect(welcome.payload.text).toContain('Добро пожаловать, Ivan');
  expect(welcome.payload.text).toContain('50');
  const menu = buttonsOf(welcome).map((b) => b.callback_data);
  for (const entry of ['chat', 'image', 'video', 'tts', 'stt', 'music', 'tools', 'balance', 'settings', 'stats', 'history', 'help']) {
    expect(menu).toContain(`menu:${entry}`);
  }
  const notice = await h.telegram.waitForCall((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === ADMIN);
  expect(notice.payload.text).toContain(`#${account.id}`);
  expect(notice.payload.text).toContain('@ivan_t');
});

test('a second /start finds the same account: no second grant, a welcome back', async () => {
  const user = h.user(4_100_002, { firstName: 'Bob', languageCode: 'en' });
  await h.send(user.text('/start'));
  await h.send(user.text('/start'));
  const rows = await h.engine.db.dataSource.getRepository(UserEntity).findBy({ telegramId: String(user.id) });
  expect(rows).toHaveLength(1);
  expect((await getBalance(h.engine.db.dataSource, rows[0].id)).total).toBe(50);
  const texts = h.telegram.sentTexts(user.id);
  expect(texts[texts.length - 1]).toContain('Welcome back, Bob');
});

test('the web messenger login of that Telegram user reaches the same account as the bot', async () => {
  const user = h.user(4_100_003, { firstName: 'Carol', username: 'carol_w' });
  await h.send(user.text('/start'));
  const data = { id: user.id, first_name: 'Carol', username: 'carol_w', auth_date: Math.floor(Date.now() / 1000) };
  const signIn = await h.engine.services.auth.signInWithTelegram({
    ...data,
    hash: telegramLoginHash(data, h.engine.services.config.bot.token!),
  });
  const account = await h.engine.db.dataSource.getRepository(UserEntity).findOneByOrFail({ telegramId: String(user.id) });
  expect(signIn.isNewUser).toBe(false);
  expect(signIn.user.id).toBe(account.id);
  expect(signIn.user.tokenBalance).toBe(50);
});

test('an account first created by the web login is the one the bot finds', async () => {
  const id = 4_100_004;
  const data = { id, first_name: 'Dan', auth_date: Math.floor(Date.now() / 1000) };
  const signIn = await h.engine.services.auth.signInWithTelegram({
    ...data,
    hash: telegramLoginHash(data, h.engine.services.config.bot.token!),
  });
  const user = h.user(id, { firstName: 'Dan' });
  await h.send(user.text('/balance'));
  const rows = await h.engine.db.dataSource.getRepository(UserEntity).findBy({ telegramId: String(id) });
  expect(rows.map((r) => r.id)).toEqual([signIn.user.id]);
  expect(h.telegram.sentTexts(id).pop()).toContain('Balance: 50 tkn');
});

test('help and the menu answer in the account language; a stale button is answered, not ignored', async () => {
  const user = h.user(4_100_005, { languageCode: 'en' });
  await h.send(user.text('/help'));
  expect(h.telegram.sentTexts(user.id).pop()).toContain('How it works');
  await h.send(user.press('cv:zzzzz:ok', { message_id: 1 }));
  const answer = h.telegram.callsOf('answerCallbackQuery').pop()!;
  expect(answer.payload.text).toContain('expired');
});
