import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { GenerationEntity } from '../../src/db/entities';
import { telegramError } from './fake-telegram';
import { BotHarness, buttonsOf, press, startBotHarness, accountOf } from './harness';

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

test('a private chat message streams as a draft with a stop button, then one final message, charged once as on /v1', async () => {
  const user = h.user(4_200_001, { languageCode: 'en' });
  await h.send(user.text('/start'));
  const mark = h.telegram.calls.length;
  const question = user.text('Tell me about foxes');
  await h.send(question);

  const calls = h.telegram.calls.slice(mark).filter((c) => Number(c.payload.chat_id) === user.id);
  const drafts = calls.filter((c) => c.method === 'sendMessageDraft');
  // First the "Thinking…" placeholder (an empty draft), then the growing answer, all under one draft id.
  expect(drafts[0].payload).toMatchObject({ text: '', can_stop: true });
  const draftId = Number(drafts[0].payload.draft_id);
  expect(draftId).not.toBe(0);
  expect(drafts.every((d) => Number(d.payload.draft_id) === draftId)).toBe(true);
  expect(drafts.length).toBeGreaterThanOrEqual(3);
  const lengths = drafts.map((d) => String(d.payload.text).length);
  expect([...lengths].sort((a, b) => a - b)).toEqual(lengths);
  // Paced while the model streams.
  for (let i = 1; i < drafts.length; i++) expect(drafts[i].at - drafts[i - 1].at).toBeGreaterThanOrEqual(30);
  // No message is edited: the answer arrives as one message once complete, in reply to the question.
  expect(calls.filter((c) => c.method === 'editMessageText')).toEqual([]);
  const sent = calls.filter((c) => c.method === 'sendMessage');
  expect(sent).toHaveLength(1);
  expect(sent[0].at).toBeGreaterThanOrEqual(drafts.at(-1)!.at);
  expect(sent[0].payload.reply_parameters).toMatchObject({ message_id: question.message!.message_id });
  expect(buttonsOf(sent[0]).map((b) => b.callback_data)).toEqual([expect.stringMatching(/^chat:again:/)]);
  expect(h.telegram.draftOf(user.id, draftId)).toMatchObject({ replaced: true, stopped: false });
  const replyId = (sent[0].result as { message_id: number }).message_id;

  const account = await accountOf(h, user.id);
  const gens = await h.engine.db.dataSource.getRepository(GenerationEntity).findBy({ userId: account.id });
  expect(gens).toHaveLength(1);
  const gen = gens[0];
  expect(gen).toMatchObject({ status: 'completed', source: 'bot', category: 'text', modelSlug: 'gpt-6-luna' });
  expect(gen.tokensSpent).toBeGreaterThanOrEqual(1);

  const final = h.telegram.textOf(user.id, replyId)!;
  expect(final.startsWith(`Sandbox reply from`)).toBe(true);
  expect(final).toContain('Tell me about foxes');
  expect(final).toContain(`— GPT-6 Luna · ${gen.tokensSpent} tkn · balance ${50 - gen.tokensSpent}`);

  // Charged once: one reservation, one settlement, and the books balance.
  const ledger = await h.engine.db.dataSource.query<{ kind: string }[]>(
    'SELECT kind FROM ledger_entries WHERE user_id = $1 AND reference = $2 ORDER BY id',
    [account.id, `gen:${gen.id}`],
  );
  expect(ledger.map((r) => r.kind)).toEqual(['reserve', 'settle']);
  const balance = await getBalance(h.engine.db.dataSource, account.id);
  expect(balance.total).toBe(50 - gen.tokensSpent);
  expect(await ledgerTotals(h.engine.db.dataSource, account.id)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
});

test('the conversation context is kept per chat and /new resets it', async () => {
  const user = h.user(4_200_002);
  await h.send(user.text('first question'));
  await h.send(user.text('second question'));
  await h.send(user.text('/new'));
  expect(h.telegram.sentTexts(user.id).pop()).toContain('New conversation started');
  await h.send(user.text('third question'));
  const account = await accountOf(h, user.id);
  const gens = await h.engine.db.dataSource.getRepository(GenerationEntity).find({ where: { userId: account.id }, order: { id: 'ASC' } });
  // params.messages: how many messages went upstream (history + the new one).
  expect(gens.map((g) => g.params.messages)).toEqual([1, 3, 1]);
});

test('the chat model picker shows prices, locks Basic models for Starter, and switches the model', async () => {
  const user = h.user(4_200_003);
  await h.send(user.text('/chat'));
  const picker = h.telegram
    .callsOf('sendMessage')
    .filter((c) => Number(c.payload.chat_id) === user.id)
    .pop()!;
  const buttons = buttonsOf(picker);
  expect(buttons.find((b) => b.callback_data === 'chat:m:gpt-6-luna')?.text).toBe('✓ GPT-6 Luna · ≈1 tkn');
  expect(buttons.find((b) => b.callback_data === 'chat:m:gpt-6.1-sol')?.text).toBe('🔒 GPT-6.1 Sol · Basic');

  await press(h, user, /^chat:m:gpt-6.1-sol$/);
  const locked = h.telegram.callsOf('answerCallbackQuery').pop()!;
  expect(locked.payload).toMatchObject({ show_alert: true });
  expect(String(locked.payload.text)).toContain('Basic');

  await press(h, user, /^chat:m:deepseek-v4-flash$/);
  await h.send(user.text('hello'));
  const account = await accountOf(h, user.id);
  const last = await h.engine.db.dataSource
    .getRepository(GenerationEntity)
    .findOneOrFail({ where: { userId: account.id }, order: { id: 'DESC' } });
  expect(last.modelSlug).toBe('deepseek-v4-flash');
});

test('a stream broken mid-answer keeps the text so far, says so, and charges nothing', async () => {
  const user = h.user(4_200_004);
  await h.send(user.text('please [[fail:midstream]] now'));
  const account = await accountOf(h, user.id);
  const gen = await h.engine.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ userId: account.id });
  expect(gen).toMatchObject({ status: 'failed', tokensSpent: 0 });
  expect((await getBalance(h.engine.db.dataSource, account.id)).total).toBe(50);
  const replies = h.telegram.calls.filter(
    (c) => Number(c.payload.chat_id) === user.id && (c.method === 'editMessageText' || c.method === 'sendMessage'),
  );
  expect(String(replies[replies.length - 1].payload.text)).toContain('Nothing was charged');
});

test('when Telegram refuses the reply (bot blocked) before the stream is read, the model is not called and nothing is held', async () => {
  const user = h.user(4_200_005);
  await h.send(user.text('/start'));
  h.telegram.failNext('sendMessageDraft', telegramError('error-403-bot-blocked'));
  await h.send(user.text('are you there?'));
  const account = await accountOf(h, user.id);
  // The hold was withdrawn before the vendor call: no generation left, its reservation released in full.
  expect(await h.engine.db.dataSource.getRepository(GenerationEntity).findBy({ userId: account.id })).toEqual([]);
  const holds = await h.engine.db.dataSource.query<{ status: string }[]>(`SELECT status FROM token_reservations WHERE user_id = $1`, [
    account.id,
  ]);
  expect(holds).toEqual([{ status: 'released' }]);
  const balance = await getBalance(h.engine.db.dataSource, account.id);
  expect(balance.total).toBe(50);
  expect(await ledgerTotals(h.engine.db.dataSource, account.id)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
});

test('an overloaded model says so by name (wait or switch), and charges nothing', async () => {
  const user = h.user(4_200_006, { languageCode: 'en' });
  await h.send(user.text('hello [[fail:overloaded]]'));
  const account = await accountOf(h, user.id);
  const gen = await h.engine.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ userId: account.id });
  expect(gen).toMatchObject({ status: 'failed', errorKind: 'overloaded', tokensSpent: 0 });
  const replies = h.telegram.calls.filter(
    (c) => Number(c.payload.chat_id) === user.id && (c.method === 'editMessageText' || c.method === 'sendMessage'),
  );
  const last = String(replies[replies.length - 1].payload.text);
  expect(last).toContain('GPT-6 Luna');
  expect(last).toMatch(/overloaded/i);
});
