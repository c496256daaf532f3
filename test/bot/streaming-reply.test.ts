import { Api } from 'grammy';
import { splitMessage, StreamingReply } from '../../src/bot/streaming-reply';
import { FakeTelegram, floodWait, telegramError } from './fake-telegram';

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
    await new Promise((r) => setTimeout(r, 5));
  }
  await reply.finish('— footer');
  const full = `${words.join('')}\n\n— footer`;
  const texts = reply.messageIds.map((id) => telegram.textOf(CHAT, id)!);
  expect(texts.join('')).toBe(full);
  for (const t of texts) expect(t.length).toBeLessThanOrEqual(4096);
  expect(texts.length).toBeGreaterThanOrEqual(3);
  // Writes of one round may come together (edit + continuation); rounds are at least the interval apart.
  const at = chatCalls(CHAT).map((c) => c.at);
  const rounds = at.filter((t, i) => i === 0 || t - at[i - 1] > 25);
  for (let i = 1; i < rounds.length; i++) expect(rounds[i] - rounds[i - 1]).toBeGreaterThanOrEqual(55);
});

test('a 429 from Telegram delays the next edit by retry_after, and the final text still arrives', async () => {
  const chat = CHAT + 1;
  const api = new Api(TOKEN, { apiRoot: telegram.url });
  const reply = new StreamingReply(api, chat, { intervalMs: 20, maxLength: 4096, placeholder: '…' });
  await reply.start();
  telegram.failNext('editMessageText', floodWait(1));
  reply.append('Hello');
  await new Promise((r) => setTimeout(r, 60));
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
