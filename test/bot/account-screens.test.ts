import { getSettings } from '../../src/core/accounts/settings';
import { syntheticImage } from '../../src/sandbox/synthetic';
import { UserEntity } from '../../src/db/entities';
import { BotHarness, buttonsOf, lastKeyboard, messageIdOf, press, startBotHarness } from './harness';

const ADMIN = 4_800_999;
let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness({ adminIds: [ADMIN], bot: { settings: { historyPageSize: 2 } } });
});
afterAll(() => h.close());

async function accountOf(telegramId: number) {
  return h.engine.db.dataSource.getRepository(UserEntity).findOneByOrFail({ telegramId: String(telegramId) });
}

test('balance shows plan tokens, bonus tokens and the next refill; plans list limits and sell them for Stars', async () => {
  const user = h.user(4_800_001, { languageCode: 'en' });
  await h.send(user.text('/balance'));
  const text = h.telegram.sentTexts(user.id).pop()!;
  expect(text).toContain('Balance: 50 tkn');
  expect(text).toContain('plan tokens: 0');
  expect(text).toContain('bonus tokens: 50 (never expire)');
  expect(text).toMatch(/Next refill: \d{1,2} \w{3} \d{4}/);
  expect(text).toContain('Limits: 20 requests/hour, 150/day');

  await press(h, user, /^bal:plans$/);
  const plans = lastKeyboard(h.telegram, user.id);
  expect(plans.method).toBe('editMessageText');
  expect(plans.payload.text).toContain('✓ Starter — free');
  expect(buttonsOf(plans).map((b) => b.callback_data)).toEqual(expect.arrayContaining(['pay:plan-basic-month', 'pay:plan-elite-month']));

  // Buying is a Telegram Stars subscription link (test/bot/payments.test.ts follows the payment through).
  await press(h, user, /^pay:plan-basic-month$/);
  const link = await h.telegram.waitForCall((c) => c.method === 'createInvoiceLink');
  expect(link.payload).toMatchObject({
    currency: 'XTR',
    subscription_period: 2592000,
    prices: [{ label: expect.any(String), amount: 250 }],
  });
});

test('settings change the language (the next screen is in it), the image format and notifications', async () => {
  const user = h.user(4_800_002, { languageCode: 'en' });
  await h.send(user.text('/settings'));
  expect(h.telegram.sentTexts(user.id).pop()).toContain('Language: English');
  await press(h, user, /^set:lang:ru$/);
  expect(String(lastKeyboard(h.telegram, user.id).payload.text)).toContain('Язык: Русский');
  await press(h, user, /^set:fmt:png$/);
  await press(h, user, /^set:notif:off$/);
  const account = await accountOf(user.id);
  expect(await getSettings(h.engine.db.dataSource, account.id)).toMatchObject({
    language: 'ru',
    image_format: 'png',
    notifications_enabled: false,
  });
  await h.send(user.text('/help'));
  expect(h.telegram.sentTexts(user.id).pop()).toContain('Как это работает');

  // With notifications off, results arrive silently; the chosen format is used.
  const file = h.telegram.addFile(await syntheticImage(64, 64, 'bw'), 'photos', 'jpg');
  await h.send(user.photo(file, 'colorize'));
  const photo = h.telegram.callsOf('sendPhoto').find((c) => Number(c.payload.chat_id) === user.id)!;
  expect(photo.payload.disable_notification).toBe(true);
  expect(photo.files.photo.name).toMatch(/\.png$/);
});

test('stats and a paged history of results; a result can be sent again', async () => {
  const user = h.user(4_800_003, { languageCode: 'en' });
  for (const word of ['one', 'two', 'three']) await h.send(user.text(word));
  const file = h.telegram.addFile(await syntheticImage(64, 64, 'bw'), 'photos', 'jpg');
  await h.send(user.photo(file, 'colorize'));

  await h.send(user.text('/stats'));
  const stats = h.telegram.sentTexts(user.id).pop()!;
  expect(stats).toContain('Completed: 4');
  expect(stats).toContain('💬 Text: 3');
  expect(stats).toContain('🛠 Tools: 1 · 1 tkn');

  await h.send(user.text('/history'));
  const first = lastKeyboard(h.telegram, user.id);
  expect(String(first.payload.text).match(/#\d+/g)).toHaveLength(2);
  expect(first.payload.text).toContain('Colorize');
  const resend = buttonsOf(first).find((b) => b.callback_data.startsWith('res:'))!;
  await press(h, user, /^hist:(?!first)/);
  const second = lastKeyboard(h.telegram, user.id);
  expect(String(second.payload.text).match(/#\d+/g)).toHaveLength(2);
  expect(second.payload.text).not.toContain('Colorize');
  // The last page: back to the newest, nothing older.
  expect(buttonsOf(second).map((b) => b.callback_data)).toEqual(['hist:first', 'menu:main']);

  const photosBefore = h.telegram.callsOf('sendPhoto').length;
  await h.send(user.press(resend.callback_data, { message_id: messageIdOf(first) }));
  expect(h.telegram.callsOf('sendPhoto').length).toBe(photosBefore + 1);
});
