// Deep links: t.me/<bot>?start=<screen> opens that screen (the group notes' buttons link there too); a referral
// link (ref_<code>) is welcomed as usual, with a note on the invitation.
import { PRIVATE_COMMANDS } from '../../src/bot/group/private-screens';
import { DEEP_LINKS } from '../../src/bot/features/start';
import { BOT_USER } from './fake-telegram';
import { BotHarness, buttonsOf, startBotHarness } from './harness';
import { member, textIn, type GroupChat } from './group-updates';

const ADMIN = 4_395_099;
let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness({ adminIds: [ADMIN] });
});
afterAll(() => h.close());

/** What the user sees after `/start <param>`: the texts of the messages sent (or edited) into the chat since. */
async function open(userId: number, param: string): Promise<string[]> {
  const user = h.user(userId);
  const mark = h.telegram.calls.length;
  await h.send(user.text(`/start ${param}`));
  return h.telegram.calls
    .slice(mark)
    .filter((c) => (c.method === 'sendMessage' || c.method === 'editMessageText') && Number(c.payload.chat_id) === userId)
    .map((c) => String(c.payload.text));
}

test('/start balance, buy, plans and settings open those screens; a first contact is welcomed first', async () => {
  const first = await open(4_395_001, 'balance');
  expect(first).toHaveLength(2);
  expect(first[0]).toContain('Welcome');
  expect(first[1]).toMatch(/^💰 Balance: 50 tkn/);
  expect(await open(4_395_001, 'balance')).toEqual([expect.stringMatching(/^💰 Balance: 50 tkn/)]);
  const [buy] = await open(4_395_001, 'buy');
  expect(buy).toMatch(/^⭐ Pay with Telegram Stars/);
  const [plans] = await open(4_395_001, 'plans');
  expect(plans).toMatch(/^⭐ Plans/);
  const [settings] = await open(4_395_001, 'settings');
  expect(settings).toMatch(/^⚙️ Settings/);
});

test('every link of a group note opens its screen in the private chat', async () => {
  const links = new Set(Object.values(PRIVATE_COMMANDS));
  for (const link of links) expect(link === 'group' || Object.hasOwn(DEEP_LINKS, link)).toBe(true);
  const expected: Record<string, RegExp> = {
    menu: /^What would you like to do\?/,
    balance: /^💰 Balance/,
    buy: /^⭐ Pay with Telegram Stars/,
    paysupport: /^💬 Payment help/,
    settings: /^⚙️ Settings/,
    stats: /^📊 Your statistics/,
    history: /^🗂 No results yet/,
    admin: /^📊|^This command is for administrators only/,
    chat: /^💬 Chat/,
    mode: /^🎭 Personas/,
    transcribe: /^🎙/,
    referral: /^🎁 Invite friends/,
    group: /^👋 Welcome back/,
  };
  await h.send(h.user(4_395_002).text('/start'));
  for (const link of links) {
    const shown = await open(4_395_002, link);
    expect([link, shown.at(-1)]).toEqual([link, expect.stringMatching(expected[link])]);
  }
  // And the group's own button leads there: a member asking for their balance in a group gets a link to it.
  const GROUP: GroupChat = { id: -1009900000004, type: 'supergroup', title: 'Links' };
  await h.send(textIn({ chat: GROUP }, member(4_395_002), `/balance@${BOT_USER.username}`));
  const note = h.telegram.calls.filter((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === GROUP.id).pop()!;
  const url = (buttonsOf(note)[0] as unknown as { url: string }).url;
  expect(url).toBe(`https://t.me/${BOT_USER.username}?start=balance`);
  expect((await open(4_395_002, new URL(url).searchParams.get('start')!)).at(-1)).toMatch(/^💰 Balance/);
});

test('a referral link (ref_<code>) and unknown parameters get the usual welcome', async () => {
  // test/bot/referrals.test.ts follows a valid code; an unknown one is only noted.
  expect(await open(4_395_003, 'ref_ABC-123')).toEqual([
    expect.stringContaining('Welcome'),
    'This invitation link is not valid; you can use the bot as usual.',
  ]);
  expect(await open(4_395_003, 'nonsense')).toEqual([expect.stringContaining('Welcome back')]);
});
