// Topics: in a forum supergroup and in a private chat with topics, every answer and wizard message goes to the topic
// it came from (`message_thread_id`), and each topic keeps its own conversation.
import { GenerationEntity } from '../../src/db/entities';
import { BOT_USER, type RecordedCall } from './fake-telegram';
import { accountOf, BotHarness, buttonsOf, generationsOf, startBotHarness } from './harness';
import { member, pressIn, textIn, type GroupChat, type Place } from './group-updates';

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness();
  await h.engine.startWorkers();
});
afterAll(() => h.close());

const FORUM: GroupChat = { id: -1009900000002, type: 'supergroup', title: 'Forum', is_forum: true };

/** Everything the bot put into the chat since `mark` that lands somewhere: messages, drafts, chat actions, results. */
function outgoing(chatId: number, mark: number): RecordedCall[] {
  return h.telegram.calls
    .slice(mark)
    .filter((c) => Number(c.payload.chat_id) === chatId && /^send/.test(c.method) && c.method !== 'sendInvoice');
}

function threadsOf(calls: RecordedCall[]): (number | undefined)[] {
  return [...new Set(calls.map((c) => (c.payload.message_thread_id === undefined ? undefined : Number(c.payload.message_thread_id))))];
}

async function chatGenerations(telegramId: number): Promise<GenerationEntity[]> {
  return (await generationsOf(h, telegramId)).filter((g) => g.category === 'text');
}

test('forum topics: each answer lands in its topic, and each topic keeps its own conversation', async () => {
  const alice = member(4_392_001);
  await h.send(h.user(alice.id).text('/start'));
  const topicA: Place = { chat: FORUM, threadId: h.telegram.createForumTopic(FORUM.id) };
  const topicB: Place = { chat: FORUM, threadId: h.telegram.createForumTopic(FORUM.id) };

  let mark = h.telegram.calls.length;
  await h.send(textIn(topicA, alice, `@${BOT_USER.username} first question in A`));
  const inA = outgoing(FORUM.id, mark);
  expect(inA.some((c) => c.method === 'sendMessage')).toBe(true);
  expect(inA.some((c) => c.method === 'sendChatAction')).toBe(true);
  expect(threadsOf(inA)).toEqual([topicA.threadId]);
  const answerA = inA.find((c) => c.method === 'sendMessage')!;
  expect(h.telegram.threadOf(FORUM.id, (answerA.result as { message_id: number }).message_id)).toBe(topicA.threadId);

  mark = h.telegram.calls.length;
  await h.send(textIn(topicB, alice, `@${BOT_USER.username} a question in B`));
  expect(threadsOf(outgoing(FORUM.id, mark))).toEqual([topicB.threadId]);

  await h.send(textIn(topicA, alice, `@${BOT_USER.username} second question in A`));
  // How many messages went upstream: topic A's history (2) and the new question; B's question started alone.
  expect((await chatGenerations(alice.id)).map((g) => g.params.messages)).toEqual([1, 1, 3]);

  // /new in topic B starts B over and leaves A's conversation as it is.
  await h.send(textIn(topicB, alice, '/new'));
  await h.send(textIn(topicA, alice, `@${BOT_USER.username} third question in A`));
  expect((await chatGenerations(alice.id)).map((g) => g.params.messages)).toEqual([1, 1, 3, 5]);
});

test('a wizard in a forum topic: every step and the result stay in the topic', async () => {
  const bob = member(4_392_002);
  await h.send(h.user(bob.id).text('/start'));
  const topic: Place = { chat: FORUM, threadId: h.telegram.createForumTopic(FORUM.id) };
  const mark = h.telegram.calls.length;
  await h.send(textIn(topic, bob, '/image'));
  const picker = h.telegram.calls.slice(mark).find((c) => c.method === 'sendMessage' && buttonsOf(c).length > 0)!;
  const pickerId = (picker.result as { message_id: number }).message_id;
  const flux = buttonsOf(picker).find((b) => b.callback_data.endsWith(':m:flux-dev'))!;
  await h.send(pressIn(topic, bob, flux.callback_data, { message_id: pickerId }));
  const size = buttonsOf(h.telegram.calls.filter((c) => c.method === 'editMessageText').pop()!).find((b) =>
    b.callback_data.endsWith(':o:1024x1024'),
  )!;
  await h.send(pressIn(topic, bob, size.callback_data, { message_id: pickerId }));
  // In a group the prompt is a reply to the bot's message (privacy mode).
  await h.send(textIn(topic, bob, 'a lighthouse in a storm', { message_id: pickerId }));
  const confirm = h.telegram.calls.filter((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === FORUM.id).pop()!;
  const ok = buttonsOf(confirm).find((b) => b.callback_data.endsWith(':ok'))!;
  await h.send(pressIn(topic, bob, ok.callback_data, { message_id: (confirm.result as { message_id: number }).message_id }));
  const photo = await h.telegram.waitForCall(
    (c) => c.method === 'sendPhoto' && Number(c.payload.chat_id) === FORUM.id && c.at >= confirm.at,
  );

  const sent = outgoing(FORUM.id, mark);
  expect(sent.filter((c) => c.method === 'sendMessage').length).toBeGreaterThanOrEqual(3);
  expect(threadsOf(sent)).toEqual([topic.threadId]);
  expect(Number(photo.payload.message_thread_id)).toBe(topic.threadId);
  const [gen] = await generationsOf(h, bob.id);
  expect(gen.delivery).toMatchObject({ chatId: FORUM.id, threadId: topic.threadId });
});

test('a private chat with topics: drafts and answers go to the topic; topics keep separate conversations', async () => {
  h.telegram.enablePrivateTopics();
  const carol = member(4_392_003);
  await h.send(h.user(carol.id).text('/start'));
  const chat = { id: carol.id, type: 'private' as const, first_name: 'Carol' };
  const work: Place = { chat, threadId: h.telegram.createPrivateTopic(carol.id) };
  const travel: Place = { chat, threadId: h.telegram.createPrivateTopic(carol.id) };

  let mark = h.telegram.calls.length;
  await h.send(textIn(work, carol, 'draft a memo'));
  const inWork = outgoing(carol.id, mark);
  expect(inWork.some((c) => c.method === 'sendMessageDraft')).toBe(true);
  expect(threadsOf(inWork)).toEqual([work.threadId]);

  mark = h.telegram.calls.length;
  await h.send(textIn(travel, carol, 'plan a trip'));
  expect(threadsOf(outgoing(carol.id, mark))).toEqual([travel.threadId]);
  await h.send(textIn(work, carol, 'shorter please'));
  expect((await chatGenerations(carol.id)).map((g) => g.params.messages)).toEqual([1, 1, 3]);
});

test('the fake Bot API refuses a topic the chat does not have, as Telegram does', async () => {
  const dave = h.user(4_392_004);
  await h.send(dave.text('/start'));
  await expect(h.app.bot.api.sendMessage(dave.id, 'hi', { message_thread_id: 999_999 })).rejects.toThrow(/message thread not found/);
  const account = await accountOf(h, dave.id);
  expect(account.telegramId).toBe(String(dave.id));
});
