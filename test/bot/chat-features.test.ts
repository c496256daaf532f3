import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { getVoiceMode } from '../../src/core/accounts/voice-preference';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import { syntheticImage } from '../../src/sandbox/synthetic';
import type { SandboxHandler } from '../../src/sandbox/types';
import { BotHarness, buttonsOf, lastKeyboard, press, startBotHarness, accountOf, generationsOf } from './harness';

// Vision, voice conversations, personas and the retry button, through the fake Bot API; the OpenAI fake records
// what the upstream received.

interface UpstreamChat {
  model: string;
  messages: { role: string; content: string | { type: string; text?: string; image_url?: { url: string } }[] }[];
}

const upstream: UpstreamChat[] = [];
const recordingOpenAi: SandboxHandler = (req, res) => {
  if (req.method === 'POST' && req.path.endsWith('/chat/completions')) upstream.push(JSON.parse(req.body.toString('utf8')) as UpstreamChat);
  return sandboxHandlers.openai(req, res);
};

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness({ handlers: { openai: recordingOpenAi } });
});
afterAll(() => h.close());

/** The newest text of the chat's newest message (after its edits). */
function lastMessageText(chatId: number): string {
  const sent = h.telegram.callsOf('sendMessage').filter((c) => Number(c.payload.chat_id) === chatId);
  const id = (sent[sent.length - 1].result as { message_id: number }).message_id;
  return h.telegram.textOf(chatId, id)!;
}

async function expectBooksBalanced(userId: number) {
  const b = await getBalance(h.engine.db.dataSource, userId);
  expect(await ledgerTotals(h.engine.db.dataSource, userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

function lastUserContent(call: UpstreamChat) {
  return call.messages[call.messages.length - 1].content;
}

test('a photo with a question goes to a vision model with the image and the question, billed like any chat', async () => {
  const user = h.user(4_900_001, { languageCode: 'en' });
  const file = h.telegram.addFile(await syntheticImage(320, 240, 'fox'), 'photos', 'jpg');
  const before = upstream.length;
  await h.send(user.photo(file, 'what is in this picture?'));

  const call = upstream.slice(before).pop()!;
  expect(call.model).toBe('gpt-6-luna');
  const content = lastUserContent(call) as { type: string; text?: string; image_url?: { url: string } }[];
  expect(content.find((p) => p.type === 'text')?.text).toBe('what is in this picture?');
  expect(content.find((p) => p.type === 'image_url')?.image_url?.url).toMatch(/^data:image\/(jpeg|png|webp);base64,/);

  const [gen] = await generationsOf(h, user.id);
  expect(gen).toMatchObject({
    status: 'completed',
    category: 'text',
    modelSlug: 'gpt-6-luna',
    source: 'bot',
    prompt: 'what is in this picture?',
  });
  const answer = lastMessageText(user.id);
  expect(answer).toContain('I received 1 image.');
  expect(answer).toContain(`— GPT-6 Luna · ${gen.tokensSpent} tkn · balance ${50 - gen.tokensSpent}`);
  expect(h.telegram.callsOf('getFile').map((c) => c.payload.file_id)).toContain(file.file_id);
  await expectBooksBalanced(gen.userId);
});

test('a chat model without vision hands the photo to the plan default vision model, and the footer names it', async () => {
  const user = h.user(4_900_002, { languageCode: 'en' });
  await h.send(user.text('/chat'));
  await press(h, user, /^chat:m:deepseek-v4-flash$/);
  const file = h.telegram.addFile(await syntheticImage(200, 200, 'cat'), 'photos', 'jpg');
  await h.send(user.photo(file, 'Which animal is this?'));
  const [gen] = await generationsOf(h, user.id);
  expect(gen.modelSlug).toBe('gpt-6-luna');
  expect(lastMessageText(user.id)).toContain('— GPT-6 Luna ·');
  // Text questions still go to the chosen model.
  await h.send(user.text('and now without a picture'));
  expect((await generationsOf(h, user.id)).pop()!.modelSlug).toBe('deepseek-v4-flash');
});

test('a reply to a photo with a question is a vision question, even while the tool picker for that photo is open', async () => {
  const user = h.user(4_900_003, { languageCode: 'en' });
  const file = h.telegram.addFile(await syntheticImage(200, 150, 'tree'), 'photos', 'jpg');
  const photo = user.photo(file);
  await h.send(photo);
  expect(lastKeyboard(h.telegram, user.id).payload.text).toContain('What should I do with this photo?');
  const before = upstream.length;
  await h.send(user.replyText('what colour is the tree?', photo.message!));
  const call = upstream.slice(before).pop()!;
  const content = lastUserContent(call) as { type: string; text?: string }[];
  expect(content.map((p) => p.type)).toEqual(['text', 'image_url']);
  expect(content[0].text).toBe('what colour is the tree?');
  expect(lastMessageText(user.id)).toContain('I received 1 image.');
  // The caption keywords keep working on a reply too.
  await h.send(user.replyText('colorize', photo.message!));
  expect((await generationsOf(h, user.id)).map((g) => g.modelSlug)).toEqual(['gpt-6-luna', 'colorize']);
});

test('voice messages in "answer" mode: transcribed (billed as STT), the chat model answers the transcript (billed as chat)', async () => {
  const user = h.user(4_900_004, { languageCode: 'en' });
  await h.send(user.text('/settings'));
  expect(h.telegram.sentTexts(user.id).pop()).toContain('Voice messages: transcribed');
  await press(h, user, /^set:voice:answer$/);
  expect(lastKeyboard(h.telegram, user.id).payload.text).toContain('Voice messages: answered by the chat model');
  const account = await accountOf(h, user.id);
  expect(await getVoiceMode(h.engine.db.dataSource, account.id)).toBe('answer');

  const voice = Buffer.alloc(24_000, 7);
  voice.write('OggS', 0, 'latin1');
  const file = h.telegram.addFile(voice, 'voice', 'oga');
  const before = upstream.length;
  await h.send(user.voice(file));

  const [stt, chat] = await generationsOf(h, user.id);
  expect(stt).toMatchObject({ status: 'completed', category: 'stt', modelSlug: 'gpt-transcribe' });
  expect(chat).toMatchObject({ status: 'completed', category: 'text', modelSlug: 'gpt-6-luna' });
  const transcript = stt.resultText!.trim();
  expect(lastUserContent(upstream.slice(before).pop()!)).toBe(transcript);
  expect(chat.prompt).toBe(transcript);
  const texts = h.telegram.sentTexts(user.id);
  expect(texts).toContain(`🎙 ${transcript}\n— GPT Transcribe · ${stt.tokensSpent} tkn`);
  expect(lastMessageText(user.id)).toContain(`— GPT-6 Luna · ${chat.tokensSpent} tkn · balance ${50 - stt.tokensSpent - chat.tokensSpent}`);
  expect((await getBalance(h.engine.db.dataSource, account.id)).total).toBe(50 - stt.tokensSpent - chat.tokensSpent);
  await expectBooksBalanced(account.id);

  // Back to "transcribe": the next voice message is only written down.
  await h.send(user.text('/settings'));
  await press(h, user, /^set:voice:transcribe$/);
  await h.send(user.voice(file));
  expect((await generationsOf(h, user.id)).map((g) => g.category)).toEqual(['stt', 'text', 'stt']);
});

test('/mode lists the built-in and own assistants; the chosen one sets the system prompt the upstream receives, and the model', async () => {
  const user = h.user(4_900_005, { languageCode: 'en' });
  await h.send(user.text('/start'));
  const account = await accountOf(h, user.id);
  const own = await h.engine.services.assistants.create(account.id, {
    name: 'Pirate',
    description: 'Answers like a pirate.',
    modelSlug: 'gpt-6-luna',
    systemPrompt: 'Talk like a pirate.',
  });
  await h.engine.services.assistants.create(account.id, {
    name: 'Poet',
    description: 'Answers in verse.',
    modelSlug: 'gpt-6.1-sol',
    systemPrompt: 'Answer in verse.',
  });
  await h.send(user.text('/mode'));
  const list = lastKeyboard(h.telegram, user.id);
  const labels = buttonsOf(list).map((b) => b.text);
  expect(labels).toEqual(expect.arrayContaining(['🎭 General assistant', '🎭 Code helper', '👤 Pirate', '✓ 🚫 No persona']));
  expect(list.payload.text).toContain('👤 Pirate — Answers like a pirate.');

  await press(h, user, (b) => b.text === '🎭 General assistant');
  expect(h.telegram.sentTexts(user.id).pop()).toBe('🎭 Persona: General assistant, model: GPT-6 Luna. A new conversation has started.');
  let before = upstream.length;
  await h.send(user.text('hello'));
  await h.send(user.text('and again'));
  const calls = upstream.slice(before);
  expect(calls).toHaveLength(2);
  for (const call of calls) expect(call.messages[0]).toEqual({ role: 'system', content: 'You are a helpful, concise assistant.' });
  expect(calls[1].messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);

  await h.send(user.text('/mode'));
  await press(h, user, new RegExp(`^mode:set:${own.id}$`));
  before = upstream.length;
  await h.send(user.text('where is the treasure?'));
  expect(upstream.slice(before).pop()!.messages).toEqual([
    { role: 'system', content: 'Talk like a pirate.' },
    { role: 'user', content: 'where is the treasure?' },
  ]);
  await h.send(user.text('/chat'));
  expect(h.telegram.sentTexts(user.id).pop()).toContain('Persona: Pirate');

  // A persona's model sets the chat model; one the account cannot use leaves the current model, and says so.
  await h.send(user.text('/mode'));
  await press(h, user, (b) => b.text === '🎭 Code helper');
  expect(h.telegram.sentTexts(user.id).pop()).toContain('model: DeepSeek');
  await h.send(user.text('/mode'));
  await press(h, user, (b) => b.text === '👤 Poet');
  expect(h.telegram.sentTexts(user.id).pop()).toMatch(
    /^🎭 Persona: Poet\. Its model, GPT-6.1 Sol, is not available to you, so DeepSeek.* answers\./,
  );

  await h.send(user.text('/mode'));
  await press(h, user, /^mode:set:off$/);
  await h.send(user.text('/chat'));
  await press(h, user, /^chat:m:gpt-6-luna$/);
  before = upstream.length;
  await h.send(user.text('plain again'));
  expect(upstream.slice(before).pop()!.messages).toEqual([{ role: 'user', content: 'plain again' }]);
});

test('the retry button asks the last question again, says it is billed again, and is charged again', async () => {
  const user = h.user(4_900_006, { languageCode: 'en' });
  await h.send(user.text('tell me a joke'));
  const answer = lastKeyboard(h.telegram, user.id);
  const retry = buttonsOf(answer).find((b) => b.callback_data.startsWith('chat:again:'))!;
  expect(retry.text).toBe('🔄 Ask again · ≈1 tkn');
  // The button comes with the final message (one write), under the answer with its footer.
  expect(answer.method).toBe('sendMessage');
  const answerId = (answer.result as { message_id: number }).message_id;
  expect(h.telegram.textOf(user.id, answerId)).toMatch(/— GPT-6 Luna · \d+ tkn · balance \d+$/);

  const before = upstream.length;
  await press(h, user, /^chat:again:/);
  expect(h.telegram.callsOf('answerCallbackQuery').pop()!.payload.text).toBe('🔄 Asking again: this is billed again, about 1 tkn.');
  // The same question, with the same context (the first answer left it).
  expect(upstream.slice(before).pop()!.messages).toEqual([{ role: 'user', content: 'tell me a joke' }]);

  const gens = await generationsOf(h, user.id);
  expect(gens).toHaveLength(2);
  expect(gens.map((g) => g.prompt)).toEqual(['tell me a joke', 'tell me a joke']);
  const account = await accountOf(h, user.id);
  const ledger = await h.engine.db.dataSource.query<{ kind: string; reference: string }[]>(
    `SELECT kind, reference FROM ledger_entries WHERE user_id = $1 AND kind = 'settle' ORDER BY id`,
    [account.id],
  );
  expect(ledger.map((r) => r.reference)).toEqual(gens.map((g) => `gen:${g.id}`));
  const spent = gens[0].tokensSpent + gens[1].tokensSpent;
  expect(gens[1].tokensSpent).toBeGreaterThanOrEqual(1);
  expect((await getBalance(h.engine.db.dataSource, account.id)).total).toBe(50 - spent);
  await expectBooksBalanced(account.id);

  // A newer question makes the older buttons expire.
  await h.send(user.text('another question'));
  const stale = h.telegram.callsOf('answerCallbackQuery').length;
  await h.send(user.press(retry.callback_data, { message_id: answerId }));
  expect(h.telegram.callsOf('answerCallbackQuery').slice(stale).pop()!.payload.text).toBe('Only the latest answer can be asked again.');
  expect(await generationsOf(h, user.id)).toHaveLength(3);
});
