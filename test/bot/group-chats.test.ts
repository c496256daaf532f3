// The bot serves private chats only. In groups, supergroups and channels it answers a short note to what is
// addressed to it and nothing else: no account, no model call, no balance shown to the group.
import type { Update } from 'grammy/types';
import { GenerationEntity, UserEntity } from '../../src/db/entities';
import { BOT_USER } from './fake-telegram';
import { BotHarness, startBotHarness } from './harness';

let h: BotHarness;
let updateId = 900_000;
let messageId = 1;

beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

const GROUP = { id: -1001234567890, type: 'supergroup' as const, title: 'Friends' };
const member = (id: number, languageCode = 'en') => ({ id, is_bot: false as const, first_name: 'Mallory', language_code: languageCode });

function groupText(
  from: ReturnType<typeof member>,
  text: string,
  chat: { id: number; type: 'group' | 'supergroup'; title: string } = GROUP,
): Update {
  const entities: { type: 'bot_command' | 'mention'; offset: number; length: number }[] = [];
  const command = /^\/[A-Za-z0-9_]+(@\w+)?/.exec(text);
  if (command) entities.push({ type: 'bot_command', offset: 0, length: command[0].length });
  const mention = text.indexOf(`@${BOT_USER.username}`);
  if (mention >= 0 && !command) entities.push({ type: 'mention', offset: mention, length: BOT_USER.username.length + 1 });
  return {
    update_id: updateId++,
    message: { message_id: messageId++, from, chat, date: Math.floor(Date.now() / 1000), text, ...(entities.length ? { entities } : {}) },
  };
}

async function accountsOf(telegramId: number) {
  return h.engine.db.dataSource.getRepository(UserEntity).countBy({ telegramId: String(telegramId) });
}

test('"@bot what is 2+2?" in a supergroup: one short note, no model call, no account, no balance', async () => {
  const sender = member(5_100_001);
  const mark = h.telegram.calls.length;
  await h.send(groupText(sender, `@${BOT_USER.username} what is 2+2?`));

  const calls = h.telegram.calls.slice(mark);
  expect(calls.map((c) => c.method)).toEqual(['sendMessage']);
  const note = String(calls[0].payload.text);
  expect(Number(calls[0].payload.chat_id)).toBe(GROUP.id);
  expect(note).toContain('private chat');
  expect(note).toContain(`@${BOT_USER.username}`);
  expect(note).not.toMatch(/balance|token|tkn|plan/i);
  expect(await accountsOf(sender.id)).toBe(0);
  expect(await h.engine.db.dataSource.getRepository(GenerationEntity).count()).toBe(0);
});

test('/start@bot in a group gets the note in the sender language, not the menu', async () => {
  const sender = member(5_100_002, 'ru');
  const mark = h.telegram.calls.length;
  await h.send(groupText(sender, `/start@${BOT_USER.username}`, { id: -4242, type: 'group', title: 'Family' }));
  const calls = h.telegram.calls.slice(mark);
  expect(calls).toHaveLength(1);
  expect(calls[0].payload.reply_markup).toBeUndefined();
  expect(String(calls[0].payload.text)).toContain('личном чате');
  expect(await accountsOf(sender.id)).toBe(0);
});

test('group chatter not meant for the bot, /balance of another bot, and channel posts get nothing', async () => {
  const sender = member(5_100_003);
  const mark = h.telegram.calls.length;
  await h.send(groupText(sender, 'what is 2+2?'));
  await h.send(groupText(sender, '/balance@some_other_bot'));
  await h.send({
    update_id: updateId++,
    channel_post: {
      message_id: messageId++,
      chat: { id: -100777, type: 'channel', title: 'News' },
      date: Math.floor(Date.now() / 1000),
      text: 'hello',
    },
  });
  expect(h.telegram.calls.slice(mark)).toEqual([]);
  expect(await accountsOf(sender.id)).toBe(0);
});

test('a button pressed under a group message answers the note as a toast and runs nothing', async () => {
  const sender = member(5_100_004);
  const mark = h.telegram.calls.length;
  await h.send({
    update_id: updateId++,
    callback_query: {
      id: `cb${updateId}`,
      from: sender,
      chat_instance: 'group-ci',
      data: 'bal:topup',
      message: { message_id: messageId++, from: BOT_USER, chat: GROUP, date: Math.floor(Date.now() / 1000), text: 'menu' },
    },
  });
  const calls = h.telegram.calls.slice(mark);
  expect(calls.map((c) => c.method)).toEqual(['answerCallbackQuery']);
  expect(String(calls[0].payload.text)).toContain('private chat');
  expect(await accountsOf(sender.id)).toBe(0);
});

test('the same person in a private chat is served as usual', async () => {
  const user = h.user(5_100_005);
  await h.send(user.text('/start'));
  expect(await accountsOf(user.id)).toBe(1);
  expect(h.telegram.sentTexts(user.id).join('\n')).toMatch(/Welcome/);
});

test('added to a group (my_chat_member): the note once; removed: nothing', async () => {
  const admin = member(5_100_006);
  const change = (oldStatus: string, newStatus: string): Update =>
    ({
      update_id: updateId++,
      my_chat_member: {
        chat: { id: -4343, type: 'group', title: 'Team' },
        from: admin,
        date: Math.floor(Date.now() / 1000),
        old_chat_member: { user: BOT_USER, status: oldStatus },
        new_chat_member: { user: BOT_USER, status: newStatus },
      },
    }) as unknown as Update;
  let mark = h.telegram.calls.length;
  await h.send(change('left', 'member'));
  const calls = h.telegram.calls.slice(mark);
  expect(calls.map((c) => [c.method, Number(c.payload.chat_id)])).toEqual([['sendMessage', -4343]]);
  expect(String(calls[0].payload.text)).toContain(`@${BOT_USER.username}`);
  mark = h.telegram.calls.length;
  await h.send(change('member', 'left'));
  expect(h.telegram.calls.slice(mark)).toEqual([]);
});
