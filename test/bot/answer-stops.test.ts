// Stopping an answer while it is written: Telegram's stop button on a draft (the `stopped_message_generation`
// update), the Stop button under an answer streamed by edits (groups), and /stop. The vendor call ends within a
// second and the user is billed for what was delivered. A stop for another user's answer changes nothing.
import type { Update } from 'grammy/types';
import { getBalance } from '../../src/core/billing/ledger';
import { GenerationEntity } from '../../src/db/entities';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import type { RecordedCall } from './fake-telegram';
import { accountOf, BotHarness, buttonsOf, generationsOf, startBotHarness } from './harness';
import { member, pressIn, textIn, type GroupChat } from './group-updates';
import { waitUntil } from '../support/wait';

let h: BotHarness;

beforeAll(async () => {
  // A slow vendor: the sandbox's answer (about 25 words) takes about four seconds, so a stop lands mid-answer.
  h = await startBotHarness({ handlers: { openai: createOpenAiSandbox({ chunkDelayMs: 150 }) } });
});
afterAll(() => h.close());

const GROUP: GroupChat = { id: -1009900000001, type: 'supergroup', title: 'Stops' };

function draftsTo(chatId: number): RecordedCall[] {
  return h.telegram.callsOf('sendMessageDraft').filter((c) => Number(c.payload.chat_id) === chatId);
}

/** The first draft with some of the answer in it. */
function firstTextDraft(chatId: number): Promise<RecordedCall> {
  return h.telegram.waitForCall(
    (c) => c.method === 'sendMessageDraft' && Number(c.payload.chat_id) === chatId && String(c.payload.text) !== '',
  );
}

async function finalMessage(chatId: number, after: number): Promise<RecordedCall> {
  return h.telegram.waitForCall((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === chatId && c.at >= after);
}

async function onlyGeneration(telegramId: number): Promise<GenerationEntity> {
  const gens = await generationsOf(h, telegramId);
  expect(gens).toHaveLength(1);
  return gens[0];
}

test("Telegram's stop button on a draft ends the vendor call within a second; the user pays for what was delivered", async () => {
  const user = h.user(4_391_001);
  await h.send(user.text('/start'));
  const turn = h.send(user.text('Tell me a long story about a fox'));
  const draft = await firstTextDraft(user.id);
  const draftId = Number(draft.payload.draft_id);
  expect(draft.payload).toMatchObject({ can_stop: true });

  const stoppedAt = Date.now();
  await h.send(h.telegram.stopDraft(user.id, draftId) as Update);
  const final = await finalMessage(user.id, stoppedAt);
  expect(final.at - stoppedAt).toBeLessThan(1000);
  await turn;

  const gen = await onlyGeneration(user.id);
  expect(gen.status).toBe('completed');
  // The vendor call ended with the stop: settled well before the full answer (about 4 s) could have streamed.
  expect(gen.completedAt!.getTime() - stoppedAt).toBeLessThan(1000);
  const shown = h.telegram.textOf(user.id, (final.result as { message_id: number }).message_id)!;
  const delivered = gen.resultText ?? '';
  expect(delivered.length).toBeGreaterThan(0);
  expect(delivered).not.toContain('not a real model');
  expect(shown.startsWith(delivered.trim())).toBe(true);
  expect(shown).toContain('⏹ Stopped');
  // Billed on the delivered text: its completion tokens are what was shown, measured.
  expect(gen.resultMetadata).toMatchObject({ completionTokens: Math.ceil(delivered.length / 4) });
  expect((await getBalance(h.engine.db.dataSource, gen.userId)).total).toBe(50 - gen.tokensSpent);
  // The answer stays in the conversation as delivered, and can be asked again.
  expect(buttonsOf(final).map((b) => b.callback_data)).toEqual([expect.stringMatching(/^chat:again:/)]);
  expect(h.telegram.draftOf(user.id, draftId)).toMatchObject({ stopped: true, replaced: true });
});

test("a stop naming another user's draft changes nothing", async () => {
  const asker = h.user(4_391_002);
  const other = h.user(4_391_003);
  await h.send(other.text('/start'));
  const turn = h.send(asker.text('Tell me about owls'));
  const draftId = Number((await firstTextDraft(asker.id)).payload.draft_id);
  // The other user's chat, the asker's draft id: not a draft of that chat.
  await h.send({
    update_id: 980_000_001,
    stopped_message_generation: { chat: { id: other.id, type: 'private', first_name: 'Bob' }, draft_id: draftId },
  } as Update);
  // /stop in the other user's chat stops nothing of the asker's either.
  await h.send(other.text('/stop'));
  expect(h.telegram.sentTexts(other.id).pop()).toBe('Nothing is being written right now.');
  await turn;
  const shown = h.telegram.sentTexts(asker.id).pop()!;
  expect(shown).toContain('not a real model');
  expect(shown).not.toContain('Stopped');
  expect((await onlyGeneration(asker.id)).status).toBe('completed');
});

test('/stop in the chat stops the answer being written there', async () => {
  const user = h.user(4_391_004);
  const turn = h.send(user.text('Tell me about badgers'));
  await firstTextDraft(user.id);
  const stoppedAt = Date.now();
  await h.send(user.text('/stop'));
  const final = await finalMessage(user.id, stoppedAt);
  expect(final.at - stoppedAt).toBeLessThan(1000);
  await turn;
  expect(String(final.payload.text)).toContain('⏹ Stopped');
  expect(h.telegram.sentTexts(user.id)).not.toContain('Nothing is being written right now.');
});

test('a stop that reaches another instance of the bot ends the answer too (webhook mode, several instances)', async () => {
  const user = h.user(4_391_005);
  const other = h.newBot();
  const turn = h.send(user.text('Tell me about herons'));
  const draftId = Number((await firstTextDraft(user.id)).payload.draft_id);
  const stoppedAt = Date.now();
  await other.bot.handleUpdate(h.telegram.stopDraft(user.id, draftId) as Update);
  const final = await finalMessage(user.id, stoppedAt);
  expect(final.at - stoppedAt).toBeLessThan(1000);
  await turn;
  expect(String(final.payload.text)).toContain('⏹ Stopped');
});

test('in a group the answer streams by edits with a Stop button only its asker can press', async () => {
  const asker = member(4_391_006);
  const bystander = member(4_391_007);
  await h.send(h.user(asker.id).text('/start'));
  await h.send(h.user(bystander.id).text('/start'));
  const place = { chat: GROUP };
  const turn = h.send(textIn(place, asker, `@${'nebula_test_bot'} tell me about otters`));
  const streaming = await h.telegram.waitForCall((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === GROUP.id);
  expect(draftsTo(GROUP.id)).toEqual([]);
  const stop = buttonsOf(streaming).find((b) => b.text === '⏹ Stop')!;
  expect(stop.callback_data).toMatch(/^chat:stop:/);
  const messageId = (streaming.result as { message_id: number }).message_id;

  await h.send(pressIn(place, bystander, stop.callback_data, { message_id: messageId }));
  const refused = h.telegram.callsOf('answerCallbackQuery').pop()!;
  expect(String(refused.payload.text)).toContain("another member's request");

  await waitUntil(() => (h.telegram.textOf(GROUP.id, messageId) ?? '').length > 20, 5000, 'some of the answer shown');
  const stoppedAt = Date.now();
  await h.send(pressIn(place, asker, stop.callback_data, { message_id: messageId }));
  expect(h.telegram.callsOf('answerCallbackQuery').pop()!.payload.text).toBe('⏹ Stopped.');
  await turn;
  const finalEdit = h.telegram.calls.filter((c) => c.method === 'editMessageText' && Number(c.payload.message_id) === messageId).pop()!;
  expect(finalEdit.at - stoppedAt).toBeLessThan(1000);
  expect(h.telegram.textOf(GROUP.id, messageId)).toContain('⏹ Stopped');
  // The Stop button is gone; the retry button took its place.
  expect(buttonsOf(finalEdit).map((b) => b.callback_data)).toEqual([expect.stringMatching(/^chat:again:/)]);
  const account = await accountOf(h, asker.id);
  const [gen] = await h.engine.db.dataSource.getRepository(GenerationEntity).findBy({ userId: account.id });
  expect(gen.resultText).not.toContain('not a real model');
});

test('a Bot API without sendMessageDraft (404): answers stream by edits with a Stop button instead', async () => {
  const user = h.user(4_391_008);
  h.telegram.failNext('sendMessageDraft', { error_code: 404, description: 'Not Found' });
  const turn = h.send(user.text('Tell me about moles'));
  const streaming = await h.telegram.waitForCall((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === user.id);
  expect(buttonsOf(streaming).map((b) => b.text)).toEqual(['⏹ Stop']);
  await h.send(user.text('/stop'));
  await turn;
  expect(h.telegram.textOf(user.id, (streaming.result as { message_id: number }).message_id)).toContain('⏹ Stopped');
  expect(h.app.deps.drafts.available).toBe(false);
  h.app.deps.drafts.available = true;
});
