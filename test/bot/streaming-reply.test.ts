import { Api } from 'grammy';
import { withChatAction } from '../../src/bot/transport/chat-action';
import { splitMessage, StreamingReply } from '../../src/bot/transport/streaming-reply';
import { FakeTelegram, floodWait, telegramError } from './fake-telegram';
import { messageIdOf } from './harness';
import { waitUntil } from '../support/wait';

const TOKEN = '42:streaming-reply-test';
const CHAT = 5_500_001;
let telegram: FakeTelegram;

beforeAll(async () => {
  telegram = await FakeTelegram.start(TOKEN);
});
afterAll(() => telegram.close());

function chatCalls(chatId: number) {
  return telegram.calls.filter((c) => Number(c.payload.chat_id) === chatId);
}

/** The first edit in the chat has had its answer (the refusal a test set up), so what follows comes after it. */
async function firstEditAnswered(chatId: number): Promise<void> {
  await telegram.waitForCall((c) => c.method === 'editMessageText' && Number(c.payload.chat_id) === chatId && c.answeredAt !== undefined);
}

test('splitMessage keeps every piece within the limit, prefers line breaks, and loses nothing', () => {
  const text = Array.from({ length: 300 }, (_, i) => `line ${i} ${'x'.repeat(i % 37)}`).join('\n');
  const pieces = splitMessage(text, 4096);
  expect(pieces.length).toBeGreaterThan(1);
  expect(pieces.join('')).toBe(text);
  for (const p of pieces) expect(p.length).toBeLessThanOrEqual(4096);
  for (const p of pieces.slice(0, -1)) expect(p.endsWith('\n')).toBe(true);
  // No space or line break at all: hard cuts at the limit, never inside a surrogate pair.
  const emoji = '😀'.repeat(5000);
  const hard = splitMessage(emoji, 4096);
  expect(hard.join('')).toBe(emoji);
  for (const p of hard) expect([...p].every((ch) => ch === '😀')).toBe(true);
});

test('a long streamed reply continues in new messages past 4096 characters, paced per chat', async () => {
  const api = new Api(TOKEN, { apiRoot: telegram.url });
  const reply = new StreamingReply(api, CHAT, { intervalMs: 60, maxLength: 4096, placeholder: '…' });
  await reply.start();
  const words = Array.from({ length: 1800 }, (_, i) => `word${i} `);
  for (let i = 0; i < words.length; i += 60) {
    reply.append(words.slice(i, i + 60).join(''));
    await new Promise((r) => setTimeout(r, 15));
  }
  await reply.finish('— footer');
  const full = `${words.join('')}\n\n— footer`;
  const texts = reply.messageIds.map((id) => telegram.textOf(CHAT, id)!);
  // Telegram drops the white space at either end of a message (here the space each piece was cut after).
  expect(texts.join(' ')).toBe(full.replace(/ \n\n/, '\n\n'));
  for (const t of texts) expect(t.length).toBeLessThanOrEqual(4096);
  expect(texts.length).toBeGreaterThanOrEqual(3);
  // A write round goes through the changed pieces in order (edit, then continuation); a call to a piece at or
  // before the previous call's starts a new round, which waits at least the interval after the last answer
  // while the model streams. (The final round, once the stream has ended, goes out at once.)
  const calls = chatCalls(CHAT).slice(1);
  const pieceOf = (c: (typeof calls)[number]) => reply.messageIds.indexOf(messageIdOf(c));
  const roundStarts = calls.filter((c, i) => i > 0 && pieceOf(c) <= pieceOf(calls[i - 1]));
  expect(roundStarts.length).toBeGreaterThanOrEqual(3);
  for (const c of roundStarts.slice(0, -1)) {
    const previous = calls[calls.indexOf(c) - 1];
    expect(c.at - previous.answeredAt!).toBeGreaterThanOrEqual(55);
  }
});

test('a 429 from Telegram delays the next edit by retry_after, and the final text still arrives', async () => {
  const chat = CHAT + 1;
  const api = new Api(TOKEN, { apiRoot: telegram.url });
  const reply = new StreamingReply(api, chat, { intervalMs: 20, maxLength: 4096, placeholder: '…' });
  await reply.start();
  telegram.failNext('editMessageText', floodWait(1));
  reply.append('Hello');
  await firstEditAnswered(chat);
  reply.append(', world');
  await reply.finish();
  const edits = chatCalls(chat).filter((c) => c.method === 'editMessageText');
  expect(edits.length).toBe(2);
  expect(edits[1].at - edits[0].at).toBeGreaterThanOrEqual(950);
  expect(telegram.textOf(chat, reply.messageIds[0])).toBe('Hello, world');
});

test('"message is not modified" counts as written: no retry loop, the reply finishes', async () => {
  const chat = CHAT + 2;
  const api = new Api(TOKEN, { apiRoot: telegram.url });
  const reply = new StreamingReply(api, chat, { intervalMs: 10, maxLength: 4096, placeholder: '…' });
  await reply.start();
  telegram.failNext('editMessageText', telegramError('error-400-message-not-modified'));
  reply.append('done');
  await reply.finish();
  expect(chatCalls(chat).filter((c) => c.method === 'editMessageText')).toHaveLength(1);
  expect(chatCalls(chat).filter((c) => c.method === 'sendMessage')).toHaveLength(1);
});

test('while an answer streams, every edit is valid HTML: `<`, `&` and an unclosed fence arrive whole', async () => {
  const chat = CHAT + 3;
  const api = new Api(TOKEN, { apiRoot: telegram.url });
  const reply = new StreamingReply(api, chat, { intervalMs: 5, maxLength: 4096, placeholder: '…' });
  await reply.start();
  const answer = 'If **a < b** & c:\n\n```js\nconst ok = a < b && c > d; // <ok>\nreturn `${a}&${b}`;\n';
  for (const ch of answer) {
    reply.append(ch);
    await new Promise((r) => setTimeout(r, 1));
  }
  await reply.finish('— footer <model> & co');
  const edits = chatCalls(chat).filter((c) => c.method === 'editMessageText');
  expect(edits.length).toBeGreaterThanOrEqual(3);
  // The fake refuses HTML the way Telegram does: every edit was accepted.
  for (const e of edits) expect(e.result).toBeDefined();
  const id = reply.messageIds[0];
  expect(telegram.textOf(chat, id)).toBe(
    'If a < b & c:\n\nconst ok = a < b && c > d; // <ok>\nreturn `${a}&${b}`;\n\n— footer <model> & co',
  );
  expect(telegram.entitiesOf(chat, id)).toEqual([
    { type: 'bold', offset: 3, length: 5 },
    { type: 'pre', offset: 15, length: 54, language: 'js' },
  ]);
});

test('when Telegram refuses the formatting, the part is written again as plain text and nothing is lost', async () => {
  const chat = CHAT + 4;
  const api = new Api(TOKEN, { apiRoot: telegram.url });
  const reply = new StreamingReply(api, chat, { intervalMs: 5, maxLength: 4096, placeholder: '…' });
  await reply.start();
  telegram.failNext('editMessageText', telegramError('error-400-cant-parse-entities'));
  reply.append('The **answer** is `42`, see [the docs](https://example.com/docs).');
  await firstEditAnswered(chat);
  reply.append('\n\nMore *text* later.');
  await reply.finish('— footer');
  const edits = chatCalls(chat).filter((c) => c.method === 'editMessageText');
  expect(edits[0].payload.parse_mode).toBe('HTML');
  expect(edits[0].result).toBeUndefined();
  // Retried at once without formatting; the message stays plain from then on.
  expect(edits[1].payload.parse_mode).toBeUndefined();
  for (const e of edits.slice(1)) expect(e.payload.parse_mode).toBeUndefined();
  expect(telegram.textOf(chat, reply.messageIds[0])).toBe(
    'The answer is 42, see the docs (https://example.com/docs).\n\nMore text later.\n\n— footer',
  );
  expect(telegram.entitiesOf(chat, reply.messageIds[0])).toEqual([]);
});

test('a continuation message whose formatting is refused is sent as plain text', async () => {
  const chat = CHAT + 5;
  const api = new Api(TOKEN, { apiRoot: telegram.url });
  const reply = new StreamingReply(api, chat, { intervalMs: 5, maxLength: 100, placeholder: '…' });
  await reply.start();
  telegram.failNext('sendMessage', telegramError('error-400-cant-parse-entities'));
  reply.append(`${'first part '.repeat(8)}\n\n**second** part with \`code\` that goes on and on`);
  await reply.finish();
  const [first, second] = reply.messageIds.map((id) => telegram.textOf(chat, id));
  expect(first).toBe('first part '.repeat(8).trim());
  expect(second).toBe('second part with code that goes on and on');
  const sends = chatCalls(chat).filter((c) => c.method === 'sendMessage');
  expect(sends.map((c) => c.payload.parse_mode)).toEqual(['HTML', 'HTML', undefined]);
});

test('the final text is written as soon as the stream ends, not at the next edit slot', async () => {
  const chat = CHAT + 6;
  const api = new Api(TOKEN, { apiRoot: telegram.url });
  // An edit slot a minute away: finishing must not wait for it (the test would time out).
  const reply = new StreamingReply(api, chat, { intervalMs: 60_000, maxLength: 4096, placeholder: '…' });
  await reply.start();
  reply.append('Short **answer**.');
  await reply.finish('— footer');
  expect(telegram.textOf(chat, reply.messageIds[0])).toBe('Short answer.\n\n— footer');
  expect(chatCalls(chat).filter((c) => c.method === 'editMessageText')).toHaveLength(1);
});

test('when the finished text renders shorter than a streamed state, surplus messages are deleted', async () => {
  const chat = CHAT + 7;
  const api = new Api(TOKEN, { apiRoot: telegram.url });
  const reply = new StreamingReply(api, chat, { intervalMs: 5, maxLength: 100, placeholder: '…' });
  await reply.start();
  // An unfinished link shows as typed (two messages), the finished one as its text only.
  reply.append(`See [the docs](https://example.com/${'a'.repeat(150)}`);
  await telegram.waitForCall(
    (c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === chat && c.result !== undefined && c !== chatCalls(chat)[0],
  );
  reply.append(')');
  await reply.finish();
  const sends = chatCalls(chat).filter((c) => c.method === 'sendMessage');
  expect(sends).toHaveLength(2);
  const second = messageIdOf(sends[1]);
  expect(telegram.isDeleted(chat, second)).toBe(true);
  expect(reply.messageIds).toHaveLength(1);
  expect(telegram.textOf(chat, reply.messageIds[0])).toBe('See the docs');
});

test('a chat action is repeated while the work lasts and stops with it', async () => {
  const chat = CHAT + 8;
  const api = new Api(TOKEN, { apiRoot: telegram.url });
  // Every action the bot sends, counted as it leaves and as its answer arrives.
  const sent = { issued: 0, settled: 0 };
  api.config.use(async (prev, method, payload, signal) => {
    if (method !== 'sendChatAction') return prev(method, payload, signal);
    sent.issued += 1;
    try {
      return await prev(method, payload, signal);
    } finally {
      sent.settled += 1;
    }
  });
  const actions = () => chatCalls(chat).filter((c) => c.method === 'sendChatAction');
  await withChatAction(
    api,
    chat,
    'upload_photo',
    async () => {
      // The work ends only once Telegram has been told three times.
      await waitUntil(() => actions().filter((c) => c.result === true).length >= 3, 5000, 'three chat actions answered');
    },
    { repeatMs: 10 },
  );
  const issuedByTheEnd = sent.issued;
  // A request already on its way may still land: once each one sent has its answer, none is in flight.
  await waitUntil(() => sent.settled === sent.issued, 5000, 'the chat actions in flight');
  expect(sent.issued).toBe(issuedByTheEnd);
  expect(actions().length).toBe(sent.issued);
  expect(actions().every((c) => c.payload.action === 'upload_photo')).toBe(true);
});

test('buttons given to finish() come with the final write of the last message, not as an extra edit', async () => {
  const chat = CHAT + 40;
  const api = new Api(TOKEN, { apiRoot: telegram.url });
  const reply = new StreamingReply(api, chat, { intervalMs: 30, maxLength: 300, placeholder: '…' });
  await reply.start();
  reply.append(Array.from({ length: 60 }, (_, i) => `word${i}`).join(' '));
  const keyboard = { inline_keyboard: [[{ text: '🔄', callback_data: 'chat:again:1' }]] };
  await reply.finish('— footer', keyboard);
  expect(reply.messageIds.length).toBeGreaterThanOrEqual(2);
  const calls = chatCalls(chat);
  expect(calls.filter((c) => c.method === 'editMessageReplyMarkup')).toEqual([]);
  const withButtons = calls.filter((c) => c.payload.reply_markup !== undefined);
  expect(withButtons).toHaveLength(1);
  expect(messageIdOf(withButtons[0])).toBe(reply.messageIds[reply.messageIds.length - 1]);
  expect(withButtons[0].payload.reply_markup).toEqual(keyboard);
  expect(telegram.textOf(chat, reply.messageIds[reply.messageIds.length - 1])).toMatch(/— footer$/);
});
