// Voice answers (/settings): a chat answer also arrives as a voice message, billed as a speech generation of its
// own; without the balance for it the text still arrives and the voice is refused politely.
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { createUser } from '../../src/core/accounts/users';
import { speakablePart } from '../../src/core/catalog/speech-input';
import { GenerationEntity } from '../../src/db/entities';
import { BotHarness, accountOf, generationsOf, lastKeyboard, press, startBotHarness } from './harness';

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

/** A Basic account (speech synthesis needs Basic) for a Telegram user, with `tokens` plan tokens. */
async function basicAccount(telegramId: number, tokens: number) {
  const { dataSource } = h.engine.db;
  return createUser(dataSource, h.engine.services.plans, { name: 'Voice', telegramId, plan: 'basic', planTokens: tokens, bonusTokens: 0 });
}

function sentTo(chatId: number, method: string) {
  return h.telegram.callsOf(method).filter((c) => Number(c.payload.chat_id) === chatId);
}

async function turnVoiceAnswersOn(user: ReturnType<BotHarness['user']>) {
  await h.send(user.text('/settings'));
  expect(String(lastKeyboard(h.telegram, user.id).payload.text)).toContain('Voice answers: off');
  await press(h, user, /^set:va:on$/);
  expect(String(lastKeyboard(h.telegram, user.id).payload.text)).toContain('Voice answers: on (Multilingual v2)');
}

test('voice answers on: the answer arrives as text and as an MP3 track (no speech model speaks Opus), billed as a TTS generation', async () => {
  const user = h.user(4_900_001);
  const account = await basicAccount(user.id, 1000);
  await turnVoiceAnswersOn(user);

  await h.send(user.text('Tell me about the sea.'));
  // The plan's default is the first speech model whose format Telegram plays (Gemini TTS speaks WAV only).
  const voice = await h.telegram.waitForCall((c) => c.method === 'sendAudio' && Number(c.payload.chat_id) === user.id);
  // The text answer is there, complete, and the voice message answers it.
  const answer = sentTo(user.id, 'sendMessage').find((c) => String(c.payload.text).includes('Sandbox reply from'))!;
  const answerId = (answer.result as { message_id: number }).message_id;
  expect(h.telegram.textOf(user.id, answerId)).toContain('Sandbox reply from');
  expect(voice.payload.reply_parameters).toMatchObject({ message_id: answerId });
  expect(voice.result).toMatchObject({ audio: { mime_type: 'audio/mpeg', performer: 'Multilingual v2' } });
  expect(sentTo(user.id, 'sendVoice')).toEqual([]);

  const gens = await generationsOf(h, user.id);
  const tts = gens.find((g) => g.category === 'tts')!;
  expect(tts).toMatchObject({ status: 'completed', modelSlug: 'vendor-v2', source: 'bot' });
  expect(tts.tokensSpent).toBeGreaterThanOrEqual(1);
  expect(tts.prompt).toContain('Sandbox reply from');
  expect(String(voice.payload.caption)).toContain(`Multilingual v2 · ${tts.tokensSpent} tkn`);
  const rows: { delta: number }[] = await h.engine.db.dataSource.query(
    `SELECT (plan_delta + bonus_delta)::int AS delta FROM ledger_entries WHERE user_id = $1 AND reference = $2`,
    [account.id, `gen:${tts.id}`],
  );
  expect(rows.reduce((n, r) => n + r.delta, 0)).toBe(-tts.tokensSpent);
  const balance = await getBalance(h.engine.db.dataSource, account.id);
  const spent = gens.reduce((n, g) => n + g.tokensSpent, 0);
  expect(balance.total).toBe(1000 - spent);
  expect(await ledgerTotals(h.engine.db.dataSource, account.id)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
});

test('too little balance for the voice: the text arrives, the voice is refused politely, nothing more is charged', async () => {
  const user = h.user(4_900_002);
  const account = await basicAccount(user.id, 1000);
  await turnVoiceAnswersOn(user);
  // Enough for the chat answer (a 2-token hold, 1 tkn spent), not for speaking it (at least 2 tkn on Multilingual v2).
  await h.engine.db.dataSource.query(`UPDATE balances SET plan_tokens = 2 WHERE user_id = $1`, [account.id]);
  await h.engine.db.dataSource.query(
    `INSERT INTO ledger_entries (user_id, kind, plan_delta, bonus_delta, note) VALUES ($1, 'adjust', -998, 0, 'test: low balance')`,
    [account.id],
  );

  await h.send(user.text('Tell me about the waves.'));
  const texts = h.telegram.sentTexts(user.id);
  const refusal = texts.find((t) => t.startsWith('🔇'))!;
  expect(refusal).toMatch(/^🔇 No voice answer this time: it needs \d+ tkn, more than the balance has\. The text answer is complete\.$/);
  expect(sentTo(user.id, 'sendVoice')).toEqual([]);
  const gens = await generationsOf(h, user.id);
  expect(gens.map((g) => g.category)).toEqual(['text']);
  expect(gens[0].status).toBe('completed');
  const answerCall = sentTo(user.id, 'sendMessage').find((c) => String(c.payload.text).includes('Sandbox reply from'))!;
  expect(h.telegram.textOf(user.id, (answerCall.result as { message_id: number }).message_id)).toContain('Tell me about the waves.');
  const balance = await getBalance(h.engine.db.dataSource, account.id);
  expect(gens[0].tokensSpent).toBe(1);
  expect(balance.total).toBe(1);
  expect(await ledgerTotals(h.engine.db.dataSource, account.id)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
});

test('a Starter account is told voice answers need a speech plan; the answer is unaffected', async () => {
  const user = h.user(4_900_003);
  await h.send(user.text('/start'));
  await h.send(user.text('/settings'));
  await press(h, user, /^set:va:on$/);
  expect(String(lastKeyboard(h.telegram, user.id).payload.text)).toContain('Voice answers: on, but your plan has no speech model');
  await h.send(user.text('hello'));
  expect(h.telegram.sentTexts(user.id).pop()).toBe(
    '🔇 Voice answers need the Basic plan or higher (speech synthesis). The text answer is complete.',
  );
  const account = await accountOf(h, user.id);
  expect(await h.engine.db.dataSource.getRepository(GenerationEntity).countBy({ userId: account.id, category: 'tts' })).toBe(0);
});

test('a speech model picked in /settings speaks; Gemini TTS (WAV, which sendAudio does not take) arrives as a file', async () => {
  const user = h.user(4_900_004);
  await basicAccount(user.id, 1000);
  await turnVoiceAnswersOn(user);
  await press(h, user, /^tts:list$/);
  await press(h, user, /^tts:m:gemini-3.8-flash-lite-tts$/);
  expect(String(lastKeyboard(h.telegram, user.id).payload.text)).toContain('Voice answers: on (Gemini 3.8 Flash-Lite TTS)');

  await h.send(user.text('Say hello.'));
  const file = await h.telegram.waitForCall((c) => c.method === 'sendDocument' && Number(c.payload.chat_id) === user.id);
  expect(file.files.document.name).toMatch(/\.wav$/);
  expect(sentTo(user.id, 'sendVoice')).toEqual([]);
  expect(sentTo(user.id, 'sendAudio')).toEqual([]);
  const tts = (await generationsOf(h, user.id)).find((g) => g.category === 'tts')!;
  expect(tts).toMatchObject({ status: 'completed', modelSlug: 'gemini-3.8-flash-lite-tts' });
  expect(String(file.payload.caption)).toContain(`Gemini 3.8 Flash-Lite TTS · ${tts.tokensSpent} tkn`);
});

test('a long answer is spoken up to the last sentence that fits', () => {
  const text = 'One. Two two. Three three three. Four.';
  expect(speakablePart(text, 100)).toEqual({ text, cut: false });
  expect(speakablePart(text, 20)).toEqual({ text: 'One. Two two.', cut: true });
  expect(speakablePart('no sentence ends here at all', 15)).toEqual({ text: 'no sentence', cut: true });
});
