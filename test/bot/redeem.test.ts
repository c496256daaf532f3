// Issue 40, `/redeem CODE` in the bot, through the fake Bot API: a tokens code credits its bonus once per account
// (a ledger grant), a plan code moves the account to the plan for the code's days; unknown, expired, used-up and
// already-redeemed codes are answered in the user's language and change nothing; in a group the bot redeems
// nothing and points to the private chat.
import { getBalance } from '../../src/core/billing/ledger';
import type { NewPromo } from '../../src/core/promos/promo-service';
import { BOT_USER } from './fake-telegram';
import { member, textIn } from './group-updates';
import { accountOf, BotHarness, startBotHarness } from './harness';

let h: BotHarness;
beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

const ds = () => h.engine.db.dataSource;
const lastText = (chatId: number) => h.telegram.sentTexts(chatId).pop() ?? '';
const promo = (input: Omit<NewPromo, 'maxUses' | 'expiresAt'> & Partial<NewPromo>) =>
  h.engine.services.promos.create({ maxUses: 10, expiresAt: new Date(Date.now() + 86_400_000), ...input } as NewPromo, {
    userId: null,
    door: 'cli',
    label: 'cli',
  });
const promoRows = async (telegramId: number) =>
  ds().query<{ bonus_delta: number }[]>(`SELECT bonus_delta FROM ledger_entries WHERE user_id = $1 AND reference LIKE 'promo:%'`, [
    (await accountOf(h, telegramId)).id,
  ]);

test('/redeem CODE credits a tokens code once and says so; a second time it is refused and nothing changes', async () => {
  const user = h.user(5_400_001, { languageCode: 'en' });
  await h.send(user.text('/start'));
  const code = await promo({ code: 'BOT-GIFT', bonusTokens: 300 });
  const before = await getBalance(ds(), (await accountOf(h, user.id)).id);

  await h.send(user.text('/redeem bot-gift'));
  expect(lastText(user.id)).toBe(`🎟 Promo code ${code.code} redeemed: 300 bonus tokens were added. Balance: ${before.total + 300}.`);
  expect(await promoRows(user.id)).toEqual([{ bonus_delta: 300 }]);

  await h.send(user.text('/redeem BOT-GIFT'));
  expect(lastText(user.id)).toBe('You have already redeemed this promo code.');
  expect(await promoRows(user.id)).toHaveLength(1);
  expect((await getBalance(ds(), (await accountOf(h, user.id)).id)).total).toBe(before.total + 300);
});

test('a plan code moves the account to the plan; refusals are worded in Russian for a Russian user', async () => {
  const user = h.user(5_400_002, { languageCode: 'ru' });
  await h.send(user.text('/start'));
  const code = await promo({ planSlug: 'basic', days: 7 });
  await h.send(user.text(`/redeem ${code.code}`));
  expect(lastText(user.id)).toMatch(new RegExp(`^🎟 Промокод ${code.code} активирован: Basic до .+; баланс: [\\d\\s]+\\.$`));
  expect((await accountOf(h, user.id)).planSlug).toBe('basic');

  await h.send(user.text('/redeem NOPE-NOPE'));
  expect(lastText(user.id)).toBe('Такого промокода нет: проверьте написание.');
  const expired = await promo({ bonusTokens: 5 });
  await ds().query(`UPDATE promo_codes SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
  await h.send(user.text(`/redeem ${expired.code}`));
  expect(lastText(user.id)).toBe('Срок действия промокода истёк.');
  const single = await promo({ bonusTokens: 5, maxUses: 1 });
  await ds().query('UPDATE promo_codes SET uses = 1 WHERE id = $1', [single.id]);
  await h.send(user.text(`/redeem ${single.code}`));
  expect(lastText(user.id)).toBe('Промокод уже использован максимальное число раз.');
  await h.send(user.text('/redeem'));
  expect(lastText(user.id)).toBe('Отправьте код после команды, например: /redeem SPRING');
  // The plan code's refill row only: the refusals wrote nothing.
  expect(await promoRows(user.id)).toEqual([{ bonus_delta: 0 }]);
});

test('in a group the bot redeems nothing and points to the private chat', async () => {
  const code = await promo({ bonusTokens: 40 });
  const group = { id: -100_540_003, type: 'supergroup' as const, title: 'Friends' };
  const alice = member(5_400_003);
  await h.send(h.user(alice.id, { languageCode: 'en' }).text('/start'));
  await h.send(textIn({ chat: group }, alice, `/redeem@${BOT_USER.username} ${code.code}`));
  expect(lastText(group.id)).toBe('Promo codes are redeemed in the private chat with me, so that nobody else sees them.');
  expect(await promoRows(alice.id)).toEqual([]);
});
