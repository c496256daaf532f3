// Group mode. In a group or supergroup the bot answers only what is addressed to it (a mention, a reply to it, a
// command), as the asking member's own account, and never shows account data there: balance, plan, history,
// payments and settings get a note with a button to the private chat. Group admins switch it off and on; buttons
// belong to the member who asked; channels get nothing. (Replaces "private chats only"; its security intent stays:
// no account data in a group.)
import { requireModel } from '../../src/core/catalog/catalog';
import { quoteGeneration } from '../../src/core/catalog/pricing';
import type { Update } from 'grammy/types';
import { getBalance } from '../../src/core/billing/ledger';
import { GenerationEntity, UserEntity } from '../../src/db/entities';
import { BOT_USER, type RecordedCall } from './fake-telegram';
import { BotHarness, buttonsOf, startBotHarness } from './harness';

let h: BotHarness;
let updateId = 900_000;
let messageId = 1;

beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

type Chat = { id: number; type: 'group' | 'supergroup'; title: string };
const GROUP: Chat = { id: -1001234567890, type: 'supergroup', title: 'Friends' };
const member = (id: number, languageCode = 'en') => ({
  id,
  is_bot: false as const,
  first_name: `Member${id % 100}`,
  language_code: languageCode,
});
type Member = ReturnType<typeof member>;
const now = () => Math.floor(Date.now() / 1000);

/** A group message as Telegram delivers it: commands and mentions of the bot carry their entities. */
function groupText(from: Member, text: string, options: { chat?: Chat; replyTo?: { message_id: number; text?: string } } = {}) {
  const chat = options.chat ?? GROUP;
  const entities: { type: 'bot_command' | 'mention'; offset: number; length: number }[] = [];
  const command = /^\/[A-Za-z0-9_]+(@\w+)?/.exec(text);
  if (command) entities.push({ type: 'bot_command', offset: 0, length: command[0].length });
  const mention = text.indexOf(`@${BOT_USER.username}`);
  if (mention >= 0 && !command) entities.push({ type: 'mention', offset: mention, length: BOT_USER.username.length + 1 });
  const message = {
    message_id: messageId++,
    from,
    chat,
    date: now(),
    text,
    ...(entities.length ? { entities } : {}),
    ...(options.replyTo
      ? {
          reply_to_message: {
            message_id: options.replyTo.message_id,
            from: BOT_USER,
            chat,
            date: now(),
            text: options.replyTo.text ?? '…',
          },
        }
      : {}),
  };
  return { update_id: updateId++, message } as Update;
}

function pressIn(from: Member, data: string, message: { message_id: number }, chat: Chat = GROUP): Update {
  return {
    update_id: updateId++,
    callback_query: {
      id: `cb${updateId}`,
      from,
      chat_instance: `ci${chat.id}`,
      data,
      message: { message_id: message.message_id, from: BOT_USER, chat, date: now(), text: '…' },
    },
  } as Update;
}

/** A member with an account (started in the private chat, as accounts start). */
async function withAccount(id: number): Promise<Member> {
  await h.send(h.user(id).text('/start'));
  return member(id);
}

async function accountOf(telegramId: number) {
  return h.engine.db.dataSource.getRepository(UserEntity).findOneBy({ telegramId: String(telegramId) });
}

function toChat(calls: RecordedCall[], chatId: number): RecordedCall[] {
  return calls.filter((c) => Number(c.payload.chat_id) === chatId);
}

/** Every text the bot showed in a chat (sent or edited into messages, captions, toasts excluded). */
function textsIn(chatId: number): string[] {
  return toChat(h.telegram.calls, chatId)
    .map((c) => String(c.payload.text ?? c.payload.caption ?? ''))
    .filter(Boolean);
}

test('a mention in a supergroup is answered by the model and billed to the asking member, with no balance shown', async () => {
  const alice = await withAccount(5_100_001);
  const account = (await accountOf(alice.id))!;
  // Her private conversation has its own context, which must not reach the group.
  await h.send(h.user(alice.id).text('my private note: the code is 4242'));

  const mark = h.telegram.calls.length;
  const question = groupText(alice, `@${BOT_USER.username} what is 2+2?`);
  await h.send(question);

  const calls = toChat(h.telegram.calls.slice(mark), GROUP.id);
  const placeholder = calls.find((c) => c.method === 'sendMessage')!;
  expect(placeholder.payload.reply_parameters).toMatchObject({ message_id: question.message!.message_id });
  const answerId = (placeholder.result as { message_id: number }).message_id;
  const answer = h.telegram.textOf(GROUP.id, answerId)!;
  // The mention is taken out: the model is asked the question itself.
  expect(answer).toContain('Sandbox reply from gpt-6-luna: you said "what is 2+2?"');
  expect(answer).toMatch(/— GPT-6 Luna · \d+ tkn$/);
  expect(answer).not.toMatch(/balance|4242/i);

  const gens = await h.engine.db.dataSource.getRepository(GenerationEntity).find({ where: { userId: account.id }, order: { id: 'ASC' } });
  const inGroup = gens[gens.length - 1];
  expect(inGroup).toMatchObject({ category: 'text', status: 'completed', source: 'bot', prompt: 'what is 2+2?' });
  const spent = gens.reduce((n, g) => n + g.tokensSpent, 0);
  expect((await getBalance(h.engine.db.dataSource, account.id)).total).toBe(50 - spent);

  // One context per member per group, apart from the private chat's.
  const sessions: { key: string; n: number }[] = await h.engine.db.dataSource.query(
    `SELECT key, jsonb_array_length(value->'chat'->'messages') AS n FROM bot_sessions WHERE key IN ($1, $2) ORDER BY key`,
    [`session:${GROUP.id}:${alice.id}`, `session:${alice.id}`],
  );
  expect(sessions).toEqual([
    { key: `session:${GROUP.id}:${alice.id}`, n: 2 },
    { key: `session:${alice.id}`, n: 2 },
  ]);
});

test('a reply to the bot is answered; group chatter, other bots’ commands and a bare mention-less text are ignored', async () => {
  const alice = await withAccount(5_100_002);
  const first = groupText(alice, `@${BOT_USER.username} hello`);
  await h.send(first);
  const botMessage = toChat(h.telegram.callsOf('sendMessage'), GROUP.id).pop()!;
  const replyTo = { message_id: (botMessage.result as { message_id: number }).message_id };

  const mark = h.telegram.calls.length;
  await h.send(groupText(alice, 'what is 2+2?'));
  await h.send(groupText(alice, '/balance@some_other_bot'));
  expect(h.telegram.calls.slice(mark)).toEqual([]);

  await h.send(groupText(alice, 'and 3+3?', { replyTo }));
  const answer = toChat(h.telegram.callsOf('sendMessage'), GROUP.id).pop()!;
  expect(h.telegram.textOf(GROUP.id, (answer.result as { message_id: number }).message_id)).toContain('you said "and 3+3?"');
});

test('/balance, /settings, /history and /start in a group: a note with a button to the private chat, no account data', async () => {
  const alice = await withAccount(5_100_003);
  for (const [command, start] of [
    ['/balance', 'balance'],
    [`/settings@${BOT_USER.username}`, 'settings'],
    ['/history', 'history'],
    ['/start', 'group'],
    ['/buy', 'buy'],
  ]) {
    const mark = h.telegram.calls.length;
    await h.send(groupText(alice, command));
    const calls = h.telegram.calls.slice(mark);
    expect(calls.map((c) => c.method)).toEqual(['sendMessage']);
    expect(Number(calls[0].payload.chat_id)).toBe(GROUP.id);
    expect(String(calls[0].payload.text)).toBe(
      '🔒 Balance, plans, payments, history and settings are not shown in groups: open our private chat.',
    );
    const markup = calls[0].payload.reply_markup as { inline_keyboard: { text: string; url?: string }[][] };
    expect(markup.inline_keyboard.flat()).toEqual([
      { text: '💬 Open the private chat', url: `https://t.me/${BOT_USER.username}?start=${start}` },
    ]);
  }
});

test('a member without an account gets the note with the private-chat button; no account is created', async () => {
  const stranger = member(5_100_004, 'ru');
  const mark = h.telegram.calls.length;
  await h.send(groupText(stranger, `@${BOT_USER.username} привет`));
  const calls = h.telegram.calls.slice(mark);
  expect(calls.map((c) => c.method)).toEqual(['sendMessage']);
  expect(String(calls[0].payload.text)).toContain('сначала запустите меня в личном чате');
  expect(buttonsOf(calls[0])).toEqual([{ text: '💬 Открыть личный чат', url: `https://t.me/${BOT_USER.username}?start=group` }]);
  expect(await accountOf(stranger.id)).toBeNull();
  expect(await h.engine.db.dataSource.getRepository(GenerationEntity).count({ where: { source: 'bot', prompt: 'привет' } })).toBe(0);
});

test('/off by a non-admin is refused; /off by an admin silences the bot (persisted); /on by an admin restores it', async () => {
  const chat: Chat = { id: -1009000000001, type: 'supergroup', title: 'Switch' };
  const admin = await withAccount(5_100_010);
  const alice = await withAccount(5_100_011);
  h.telegram.setChatMember(chat.id, admin.id, 'administrator');
  const lastText = () => String(toChat(h.telegram.callsOf('sendMessage'), chat.id).pop()!.payload.text);

  await h.send(groupText(alice, '/off', { chat }));
  expect(lastText()).toBe("Only the group's admins can switch me off or on.");
  expect(await h.engine.services.groupChats.isEnabled(chat.id)).toBe(true);

  await h.send(groupText(admin, `/off@${BOT_USER.username}`, { chat }));
  expect(lastText()).toBe("🔕 I'm off in this group. An admin can switch me on again with /on.");
  const rows = await h.engine.db.dataSource.query('SELECT enabled, changed_by FROM bot_group_chats WHERE chat_id = $1', [String(chat.id)]);
  expect(rows).toEqual([{ enabled: false, changed_by: String(admin.id) }]);

  // While off: nothing, not even to a mention, a command or a member's /on.
  const mark = h.telegram.calls.length;
  await h.send(groupText(alice, `@${BOT_USER.username} are you there?`, { chat }));
  await h.send(groupText(alice, '/image', { chat }));
  await h.send(groupText(alice, '/on', { chat }));
  expect(h.telegram.calls.slice(mark).filter((c) => c.method !== 'getChatMember')).toEqual([]);
  expect(await h.engine.services.groupChats.isEnabled(chat.id)).toBe(false);

  await h.send(groupText(admin, '/on', { chat }));
  expect(lastText()).toContain("🔔 I'm on again in this group");
  await h.send(groupText(alice, `@${BOT_USER.username} are you there?`, { chat }));
  const answer = toChat(h.telegram.callsOf('sendMessage'), chat.id).pop()!;
  expect(h.telegram.textOf(chat.id, (answer.result as { message_id: number }).message_id)).toContain('you said "are you there?"');
});

test('a button pressed by another member is refused with a toast; the asker’s own press works', async () => {
  const alice = await withAccount(5_100_020);
  const bob = await withAccount(5_100_021);
  await h.send(groupText(alice, `@${BOT_USER.username} tell me a joke`));
  const answer = toChat(h.telegram.callsOf('sendMessage'), GROUP.id).pop()!;
  const answerId = (answer.result as { message_id: number }).message_id;
  const retry = toChat(h.telegram.callsOf('editMessageText'), GROUP.id)
    .filter((c) => Number(c.payload.message_id) === answerId)
    .flatMap(buttonsOf)
    .find((b) => b.callback_data.startsWith('chat:again:'))!;
  const account = (await accountOf(alice.id))!;
  const count = () => h.engine.db.dataSource.getRepository(GenerationEntity).countBy({ userId: account.id });
  const before = await count();

  const mark = h.telegram.calls.length;
  await h.send(pressIn(bob, retry.callback_data, { message_id: answerId }));
  const refused = h.telegram.calls.slice(mark);
  expect(refused.map((c) => c.method)).toEqual(['answerCallbackQuery']);
  expect(refused[0].payload).toMatchObject({ text: "This button belongs to another member's request.", show_alert: true });
  expect(await count()).toBe(before);

  await h.send(pressIn(alice, retry.callback_data, { message_id: answerId }));
  expect(await count()).toBe(before + 1);
});

test('a wizard in a group: model picker without plan locks, steps say to reply, no balance in the confirmation', async () => {
  const alice = await withAccount(5_100_030);
  await h.send(groupText(alice, '/image'));
  const picker = toChat(h.telegram.callsOf('sendMessage'), GROUP.id).pop()!;
  const labels = buttonsOf(picker).map((b) => b.text);
  expect(labels.some((l) => l.includes('🔒'))).toBe(false);
  const flux = buttonsOf(picker).find((b) => b.callback_data.endsWith(':m:flux-dev'))!;
  const pickerId = (picker.result as { message_id: number }).message_id;

  // Someone else cannot drive Alice's wizard.
  await h.send(pressIn(member(5_100_031), flux.callback_data, { message_id: pickerId }));
  expect(h.telegram.callsOf('answerCallbackQuery').pop()!.payload.text).toBe("This button belongs to another member's request.");

  await h.send(pressIn(alice, flux.callback_data, { message_id: pickerId }));
  const sizes = toChat(h.telegram.callsOf('editMessageText'), GROUP.id).pop()!;
  const size = buttonsOf(sizes).find((b) => b.callback_data.endsWith(':o:1024x1024'))!;
  await h.send(pressIn(alice, size.callback_data, { message_id: pickerId }));
  const ask = toChat(h.telegram.callsOf('editMessageText'), GROUP.id).pop()!;
  expect(String(ask.payload.text)).toContain('↩️ In a group, reply to this message.');
  await h.send(groupText(alice, 'a lighthouse', { replyTo: { message_id: pickerId } }));
  const confirm = toChat(h.telegram.callsOf('sendMessage'), GROUP.id).pop()!;
  expect(String(confirm.payload.text)).toMatch(new RegExp(`Price: ${quoteGeneration(requireModel('flux-dev'))} tkn$`));
  expect(String(confirm.payload.text)).not.toMatch(/balance/i);
});

test('channel posts and the bot being made a channel admin get nothing', async () => {
  const channel = { id: -100777, type: 'channel' as const, title: 'News' };
  const post = {
    update_id: updateId++,
    channel_post: { message_id: messageId++, chat: channel, date: now(), text: `@${BOT_USER.username} hi` },
  };
  const mark = h.telegram.calls.length;
  await h.send(post as Update);
  // Not subscribed (Telegram withholds it), and ignored even if it came.
  expect(h.telegram.withheld).toContainEqual(post);
  await h.app.bot.handleUpdate(post as Update);
  await h.send({
    update_id: updateId++,
    my_chat_member: {
      chat: channel,
      from: member(5_100_040),
      date: now(),
      old_chat_member: { user: BOT_USER, status: 'left' },
      new_chat_member: { user: BOT_USER, status: 'administrator' },
    },
  } as unknown as Update);
  expect(h.telegram.calls.slice(mark)).toEqual([]);
});

test('added to a group: one short introduction with a button to the private chat; removed: nothing', async () => {
  const adder = member(5_100_050);
  const chat = { id: -4343, type: 'group' as const, title: 'Team' };
  const change = (oldStatus: string, newStatus: string): Update =>
    ({
      update_id: updateId++,
      my_chat_member: {
        chat,
        from: adder,
        date: now(),
        old_chat_member: { user: BOT_USER, status: oldStatus },
        new_chat_member: { user: BOT_USER, status: newStatus },
      },
    }) as unknown as Update;
  let mark = h.telegram.calls.length;
  await h.send(change('left', 'member'));
  const calls = h.telegram.calls.slice(mark);
  expect(calls.map((c) => [c.method, Number(c.payload.chat_id)])).toEqual([['sendMessage', chat.id]]);
  expect(String(calls[0].payload.text)).toContain(`Mention me (@${BOT_USER.username})`);
  expect(String(calls[0].payload.text)).toContain('/off');
  mark = h.telegram.calls.length;
  await h.send(change('member', 'left'));
  await h.send(change('left', 'kicked'));
  expect(h.telegram.calls.slice(mark)).toEqual([]);
});

test('nothing the bot wrote in any group names a balance, a plan or a member’s history', () => {
  const groups = new Set(h.telegram.calls.map((c) => Number(c.payload.chat_id)).filter((id) => id < 0));
  const texts = [...groups].flatMap((id) => textsIn(id));
  expect(texts.length).toBeGreaterThan(10);
  for (const text of texts) {
    expect(text).not.toMatch(/balance[: ]+\d|баланс[: ]+\d|Starter|Basic|Elite|your plan|history:/i);
  }
});
