// Issue 39, referrals in the bot, through the fake Bot API: /referral (and Balance → Invite friends, and the deep
// link) shows the account's link; a new user who starts through `/start ref_<code>` is tied to the inviter once
// (never to themselves, never again); at the invitee's first Stars payment both get their bonus tokens, each a
// ledger row, and are told; a second payment credits nothing.
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { BOT_USER } from './fake-telegram';
import { accountOf, BotHarness, buttonsOf, lastKeyboard, press, startBotHarness } from './harness';
import type { TestUser } from './updates';

const INVITER_BONUS = 120;
const INVITEE_BONUS = 40;
let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness({ env: { REFERRAL_BONUS_INVITER: String(INVITER_BONUS), REFERRAL_BONUS_INVITEE: String(INVITEE_BONUS) } });
});
afterAll(() => h.close());

const ds = () => h.engine.db.dataSource;
const lastText = (chatId: number) => h.telegram.sentTexts(chatId).pop() ?? '';
/** The texts the user was sent by the update `send` delivers. */
async function textsOf(user: TestUser, send: () => Promise<void>): Promise<string[]> {
  const mark = h.telegram.calls.length;
  await send();
  return h.telegram.calls
    .slice(mark)
    .filter((c) => (c.method === 'sendMessage' || c.method === 'editMessageText') && Number(c.payload.chat_id) === user.id)
    .map((c) => String(c.payload.text));
}
const codeOf = async (telegramId: number) => h.engine.services.referrals.codeOf((await accountOf(h, telegramId)).id);
const invitedBy = async (telegramId: number) => (await h.engine.services.referrals.summary((await accountOf(h, telegramId)).id)).invited;
const referralRows = async (telegramId: number) =>
  ds().query<{ reference: string; bonus_delta: number }[]>(
    `SELECT reference, bonus_delta FROM ledger_entries WHERE user_id = $1 AND reference LIKE 'referral:%' ORDER BY id`,
    [(await accountOf(h, telegramId)).id],
  );

/** /buy → the 100-token package → pre-checkout → payment: what the buyer was told. */
async function buyTokens(user: TestUser, charge: string): Promise<string> {
  await h.send(user.text('/buy'));
  const mark = h.telegram.calls.length;
  await press(h, user, /^pay:tokens-100$/);
  const invoice = h.telegram.calls.slice(mark).find((c) => c.method === 'sendInvoice')!;
  const payload = String(invoice.payload.payload);
  const stars = (invoice.payload.prices as { amount: number }[])[0].amount;
  await h.send(user.preCheckout(payload, stars));
  await h.send(user.successfulPayment(payload, stars, charge));
  return lastText(user.id);
}

test('/referral shows the link to share (the bot’s deep link), the terms and the counts; Balance and the deep link lead there', async () => {
  const user = h.user(5_100_001, { languageCode: 'en' });
  await h.send(user.text('/start'));
  await h.send(user.text('/referral'));
  const screen = lastKeyboard(h.telegram, user.id);
  const code = await codeOf(user.id);
  const link = `https://t.me/${BOT_USER.username}?start=ref_${code}`;
  expect(screen.payload.text).toBe(
    [
      '🎁 Invite friends',
      `Your invitation link:\n${link}`,
      `A friend who joins through it and makes a first payment gets ${INVITEE_BONUS} bonus tokens, and you get ${INVITER_BONUS}.`,
      'Joined through your link: 0 · earned: 0 tokens',
    ].join('\n\n'),
  );
  const share = buttonsOf(screen)[0] as unknown as { url: string };
  expect(new URL(share.url).searchParams.get('url')).toBe(link);

  await h.send(user.text('/balance'));
  await press(h, user, /^ref$/);
  expect(lastKeyboard(h.telegram, user.id).payload.text).toContain(link);
  expect((await textsOf(user, () => h.send(user.text('/start referral')))).at(-1)).toContain(link);
});

test('a new user who starts through the link joins once; the first Stars payment pays both bonuses once, the second none', async () => {
  const inviter = h.user(5_100_010, { languageCode: 'en', firstName: 'Ines' });
  await h.send(inviter.text('/start'));
  const code = await codeOf(inviter.id);

  const invitee = h.user(5_100_011, { languageCode: 'en', firstName: 'Jonas' });
  const greeting = await textsOf(invitee, () => h.send(invitee.text(`/start ref_${code}`)));
  expect(greeting).toEqual([
    expect.stringContaining('Welcome, Jonas'),
    `🤝 You joined through Ines's invitation: with your first payment you get ${INVITEE_BONUS} bonus tokens extra.`,
  ]);
  expect(await invitedBy(inviter.id)).toBe(1);

  // Another link later ties nothing: the account is no longer new, and it is tied already.
  const other = h.user(5_100_012, { languageCode: 'en' });
  await h.send(other.text('/start'));
  const otherCode = await codeOf(other.id);
  expect((await textsOf(invitee, () => h.send(invitee.text(`/start ref_${otherCode}`)))).at(-1)).toBe(
    'Invitation links count for new accounts only; yours is already set up.',
  );
  expect(await invitedBy(other.id)).toBe(0);

  const inviterAccount = await accountOf(h, inviter.id);
  const inviteeAccount = await accountOf(h, invitee.id);
  const inviterBefore = await getBalance(ds(), inviterAccount.id);
  const inviteeBefore = await getBalance(ds(), inviteeAccount.id);
  const thanks = await buyTokens(invitee, 'stxReferralFirst');
  expect(thanks).toBe(
    `✅ Thank you! 100 bonus tokens were added. Balance: ${inviteeBefore.total + 100 + INVITEE_BONUS} tkn.\n` +
      `🎁 You joined through an invitation: ${INVITEE_BONUS} bonus tokens were added with your first payment.`,
  );
  const told = await h.telegram.waitForCall(
    (c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === inviter.id && /🎁 A friend/.test(String(c.payload.text)),
  );
  expect(told.payload.text).toBe(
    `🎁 A friend you invited made their first payment: ${INVITER_BONUS} bonus tokens were added to your balance.`,
  );
  expect((await getBalance(ds(), inviterAccount.id)).bonusTokens).toBe(inviterBefore.bonusTokens + INVITER_BONUS);
  expect(await referralRows(invitee.id)).toEqual([{ reference: `referral:${inviteeAccount.id}`, bonus_delta: INVITEE_BONUS }]);
  expect(await referralRows(inviter.id)).toEqual([{ reference: `referral:${inviteeAccount.id}`, bonus_delta: INVITER_BONUS }]);
  expect(await h.engine.services.referrals.summary(inviterAccount.id)).toMatchObject({ invited: 1, earnedTokens: INVITER_BONUS });

  const second = await buyTokens(invitee, 'stxReferralSecond');
  expect(second).toBe(`✅ Thank you! 100 bonus tokens were added. Balance: ${inviteeBefore.total + 200 + INVITEE_BONUS} tkn.`);
  expect(await referralRows(invitee.id)).toHaveLength(1);
  expect(await referralRows(inviter.id)).toHaveLength(1);
  expect((await getBalance(ds(), inviterAccount.id)).bonusTokens).toBe(inviterBefore.bonusTokens + INVITER_BONUS);
  for (const id of [inviterAccount.id, inviteeAccount.id]) {
    const b = await getBalance(ds(), id);
    expect(await ledgerTotals(ds(), id)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
  }
});

test('a self-referral is refused: the own link ties nothing and says so', async () => {
  const user = h.user(5_100_020, { languageCode: 'en' });
  await h.send(user.text('/start'));
  const code = await codeOf(user.id);
  expect((await textsOf(user, () => h.send(user.text(`/start ref_${code}`)))).at(-1)).toBe(
    'That is your own invitation link: share it with friends (it counts for new accounts only).',
  );
  expect(await invitedBy(user.id)).toBe(0);
  const [tied] = await ds().query('SELECT count(*)::int AS n FROM referrals WHERE invitee_id = $1', [(await accountOf(h, user.id)).id]);
  expect(tied.n).toBe(0);
});

test('an unknown code gets the welcome and a note', async () => {
  const user = h.user(5_100_030, { languageCode: 'en' });
  expect(await textsOf(user, () => h.send(user.text('/start ref_NOSUCH-1')))).toEqual([
    expect.stringContaining('Welcome'),
    'This invitation link is not valid; you can use the bot as usual.',
  ]);
});
