import { Api, GrammyError } from 'grammy';
import { DraftReply } from '../../src/bot/transport/draft-reply';
import { FakeTelegram, floodWait } from './fake-telegram';
import { waitUntil } from '../support/wait';

const TOKEN = '42:draft-reply-test';
const CHAT = 5_600_001;
let telegram: FakeTelegram;
let api: Api;

beforeAll(async () => {
  telegram = await FakeTelegram.start(TOKEN);
  api = new Api(TOKEN, { apiRoot: telegram.url });
});
afterAll(() => telegram.close());

function callsTo(chatId: number, method: string) {
  return telegram.calls.filter((c) => c.method === method && Number(c.payload.chat_id) === chatId);
}

async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    if (err instanceof GrammyError) return `${err.error_code} ${err.description}`;
    throw err;
  }
  throw new Error('the Bot API accepted it');
}

describe('the fake Bot API takes drafts as the Bot API documents them', () => {
  test('private chats only, a non-zero draft_id, 0-4096 characters after entities parsing', async () => {
    expect(await refusal(api.sendMessageDraft(-100123, 5, 'hi'))).toMatch(/^400 .*private chats/);
    expect(await refusal(api.sendMessageDraft(CHAT, 0, 'hi'))).toMatch(/^400 .*draft_id/);
    expect(await refusal(api.sendMessageDraft(CHAT, 5, 'x'.repeat(4097)))).toMatch(/^400 .*too long/);
    expect(await refusal(api.sendMessageDraft(CHAT, 5, '<b>unclosed', { parse_mode: 'HTML' }))).toMatch(/^400 .*can't parse entities/);
    // Empty text is the "Thinking…" placeholder; 4096 characters after the formatting is parsed fit.
    await api.sendMessageDraft(CHAT, 5, '');
    expect(telegram.draftOf(CHAT, 5)).toMatchObject({ text: '', canStop: false });
    await api.sendMessageDraft(CHAT, 5, `<b>${'y'.repeat(4096)}</b>`, { parse_mode: 'HTML', can_stop: true });
    expect(telegram.draftOf(CHAT, 5)).toMatchObject({ text: 'y'.repeat(4096), canStop: true });
  });

  test('the stop button exists only on drafts sent with can_stop; drafts after a stop are not shown', async () => {
    await api.sendMessageDraft(CHAT, 6, 'no button');
    expect(() => telegram.stopDraft(CHAT, 6)).toThrow(/can_stop/);
    await api.sendMessageDraft(CHAT, 7, 'with button', { can_stop: true });
    const update = telegram.stopDraft(CHAT, 7) as { stopped_message_generation?: { draft_id: number; chat: { id: number } } };
    expect(update.stopped_message_generation).toMatchObject({ draft_id: 7, chat: { id: CHAT, type: 'private' } });
    await api.sendMessageDraft(CHAT, 7, 'with button, more', { can_stop: true });
    expect(telegram.draftOf(CHAT, 7)).toMatchObject({ text: 'with button', stopped: true, afterStop: 1 });
  });
});

test('a long answer: the draft shows its last 4096 characters; the final answer arrives as several messages', async () => {
  const chat = CHAT + 1;
  const reply = new DraftReply(api, chat, { intervalMs: 20, maxLength: 4096, draftId: 11, replyTo: 3 });
  await reply.start();
  const words = Array.from({ length: 1800 }, (_, i) => `word${i} `);
  for (let i = 0; i < words.length; i += 100) {
    reply.append(words.slice(i, i + 100).join(''));
    // The draft catches up with each piece before the next arrives, as it would with a vendor's pace.
    const last = `word${i + 99}`;
    await waitUntil(
      () => callsTo(chat, 'sendMessageDraft').some((d) => String(d.payload.text).includes(last)),
      5_000,
      `a draft with ${last}`,
    );
  }
  await reply.finish('— footer', { inline_keyboard: [[{ text: 'again', callback_data: 'x' }]] });
  for (const d of callsTo(chat, 'sendMessageDraft')) {
    expect(Number(d.payload.draft_id)).toBe(11);
    expect(String(d.payload.text).length).toBeLessThanOrEqual(4096);
  }
  const sent = callsTo(chat, 'sendMessage');
  expect(sent.length).toBeGreaterThanOrEqual(3);
  expect(reply.messageIds).toEqual(sent.map((c) => (c.result as { message_id: number }).message_id));
  const texts = reply.messageIds.map((id) => telegram.textOf(chat, id)!);
  expect(texts.join(' ')).toBe(`${words.join('')}\n\n— footer`.replace(/ \n\n/, '\n\n'));
  // The first message answers the question; the buttons sit under the last one.
  expect(sent[0].payload.reply_parameters).toMatchObject({ message_id: 3 });
  expect(sent.slice(0, -1).every((c) => c.payload.reply_markup === undefined)).toBe(true);
  expect(sent.at(-1)!.payload.reply_markup).toBeDefined();
});

test('a 429 on a draft delays the next draft by retry_after; the final message still arrives', async () => {
  const chat = CHAT + 2;
  const reply = new DraftReply(api, chat, { intervalMs: 10, maxLength: 4096, draftId: 12 });
  await reply.start();
  telegram.failNext('sendMessageDraft', floodWait(1));
  reply.append('Hello');
  await telegram.waitForCall(
    (c) => c.method === 'sendMessageDraft' && Number(c.payload.chat_id) === chat && c.answeredAt !== undefined && c.payload.text !== '',
  );
  const refusedAt = Date.now();
  reply.append(', world');
  const next = await telegram.waitForCall((c) => c.method === 'sendMessageDraft' && Number(c.payload.chat_id) === chat && c.at > refusedAt);
  expect(next.at - refusedAt).toBeGreaterThanOrEqual(900);
  expect(next.payload.text).toBe('Hello, world');
  await reply.finish();
  expect(telegram.sentTexts(chat)).toEqual(['Hello, world']);
});
