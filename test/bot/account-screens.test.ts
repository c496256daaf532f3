import { getSettings } from '../../src/core/accounts/settings';
import { createUser } from '../../src/core/accounts/users';
import { syntheticImage } from '../../src/sandbox/synthetic';
import { BotHarness, buttonsOf, lastKeyboard, messageIdOf, press, startBotHarness, accountOf } from './harness';

const ADMIN = 4_800_999;
let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness({ adminIds: [ADMIN], bot: { settings: { historyPageSize: 2 } } });
});
afterAll(() => h.close());

test('balance shows plan tokens and bonus tokens; Starter promises no refill and no end date; plans list limits and sell them for Stars', async () => {
  const user = h.user(4_800_001, { languageCode: 'en' });
  await h.send(user.text('/balance'));
  const text = h.telegram.sentTexts(user.id).pop()!;
  expect(text).toContain('Balance: 50 tkn');
  expect(text).toContain('plan tokens: 0');
  expect(text).toContain('bonus tokens: 50 (never expire)');
  expect(text).toMatch(/^Plan: Starter$/m);
  expect(text).not.toMatch(/until|no end date|Next refill/);
  expect(text).toContain('The Starter plan has no monthly refill');
  expect(text).toContain('Limits: 20 requests/hour, 150/day');

  await press(h, user, /^bal:plans$/);
  const plans = lastKeyboard(h.telegram, user.id);
  expect(plans.method).toBe('editMessageText');
  expect(plans.payload.text).toContain('✓ Starter — free');
  // Priced in what the bot sells them for: Stars, as on the buttons (no rouble price in the bot).
  const articles = await h.engine.services.payments.catalog.list();
  const basic = articles.find((a) => a.id === 'plan-basic-month')!;
  expect(plans.payload.text).toContain(`Basic — ⭐ ${basic.stars} / 30 days`);
  expect(plans.payload.text).not.toMatch(/₽|RUB/);
  expect(buttonsOf(plans).find((b) => b.callback_data === 'pay:plan-basic-month')!.text).toContain(String(basic.stars));
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

test('the Starter balance reads correctly in Russian; a paid plan shows its end date and next refill', async () => {
  const ru = h.user(4_800_011, { languageCode: 'ru' });
  await h.send(ru.text('/balance'));
  const starter = h.telegram.sentTexts(ru.id).pop()!;
  expect(starter).toMatch(/^Тариф: Starter$/m);
  expect(starter).not.toMatch(/бессрочно|до |Следующее пополнение/);
  expect(starter).toContain('Тариф Starter не пополняется ежемесячно');

  const telegramId = 4_800_012;
  await createUser(h.engine.db.dataSource, h.engine.services.plans, { name: 'Paid', telegramId, plan: 'basic', planTokens: 1000 });
  const paid = h.user(telegramId, { languageCode: 'en' });
  await h.send(paid.text('/balance'));
  const text = h.telegram.sentTexts(paid.id).pop()!;
  expect(text).toMatch(/^Plan: Basic, until \d{1,2} \w{3} \d{4}$/m);
  expect(text).toMatch(/^Next refill: \d{1,2} \w{3} \d{4} \(1,000 plan tokens\)$/m);
  expect(text).toContain('Limits: 30 requests/hour, 200/day');
});

test('settings change the language (the next screen is in it), the image format and notifications', async () => {
  const user = h.user(4_800_002, { languageCode: 'en' });
  await h.send(user.text('/settings'));
  expect(h.telegram.sentTexts(user.id).pop()).toContain('Language: English');
  await press(h, user, /^set:lang:ru$/);
  expect(String(lastKeyboard(h.telegram, user.id).payload.text)).toContain('Язык: Русский');
  await press(h, user, /^set:fmt:png$/);
  await press(h, user, /^set:notif:off$/);
  const account = await accountOf(h, user.id);
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
  // Entries are labelled with the start of what was asked; a prompt-less tool's button names the tool.
  expect(first.payload.text).toMatch(/#\d+ GPT-6 Luna · \d+ tkn · .+\n“three”/);
  const resend = buttonsOf(first).find((b) => b.callback_data.startsWith('res:'))!;
  expect(resend.text).toMatch(/^📎 #\d+ Colorize$/);
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

test('/mode lists the assistants and points to the dashboard’s Assistants page, where they are made', async () => {
  const user = h.user(4_800_009, { languageCode: 'en' });
  await h.send(user.text('/mode'));
  const text = h.telegram.sentTexts(user.id).pop()!;
  expect(text).toMatch(/^🎭 Personas/);
  expect(text).toContain('Create your own assistants (instructions and model) on the Assistants page of the dashboard');
  // Without a public address there is no page to link to (test/bot/mini-app.test.ts has the Mini App's button).
  expect(buttonsOf(lastKeyboard(h.telegram, user.id)).map((b) => b.text)).not.toContain('🧩 Your assistants');
  const ru = h.user(4_800_010, { languageCode: 'ru' });
  await h.send(ru.text('/mode'));
  expect(h.telegram.sentTexts(ru.id).pop()).toContain('на странице «Ассистенты»');
});
