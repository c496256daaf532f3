import { InlineKeyboard } from 'grammy';
import { baseTokenCost } from '../../core/catalog/pricing';
import type { TextModel } from '../../core/catalog/types';
import type { ChatStream } from '../../core/generations/chat/types';
import type { ChatInputMessage, ChatInputPart } from '../../core/generations/chat/request';
import { sniffImage } from '../../core/media/sniff';
import type { ChatMessage } from '../../core/providers/types';
import { CHAT_RETRY } from '../callback-data';
import { withChatAction } from '../transport/chat-action';
import type { BotContext, BotSettings, LastTurn } from '../context';
import { audienceOf, describeErrorForUser, failureText, isExpectedError, vendorFailureKind } from '../errors';
import { isGroupChat } from '../group/chats';
import { StreamingReply } from '../transport/streaming-reply';
import { speakAnswer } from './voice-answer';
import { downloadTelegramFile, toDataUri } from '../transport/telegram-files';

/** One question to the chat model: text, optionally about a photo (vision), answered in reply to `replyTo`. */
export interface ChatTurn {
  text: string;
  image?: { fileId: string; fileSize?: number };
  replyTo?: number;
}

/** Keeps the newest messages within the count and size bounds, starting with a user message. */
export function trimHistory(messages: ChatMessage[], settings: Pick<BotSettings, 'historyMessages' | 'historyCharacters'>): ChatMessage[] {
  const out = [...messages];
  const size = () => out.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : 0), 0);
  while (out.length > 0 && (out.length > settings.historyMessages || size() > settings.historyCharacters)) out.shift();
  while (out.length > 0 && out[0].role !== 'user') out.shift();
  return out;
}

/** How a question about a photo stays in the context: the image itself is sent once, with the question. */
const IMAGE_MARK = '[image]';

/** The model that answers the turn: the chat model, or for a photo a model that sees images (see SettingsService). */
export function modelForTurn(ctx: BotContext, turn: Pick<ChatTurn, 'image'>): Promise<TextModel> {
  const account = ctx.account!;
  const { settings } = ctx.deps.services;
  return turn.image ? settings.visionModel(account.user.id, account.plan.slug) : settings.chatModel(account.user.id, account.plan.slug);
}

/** The retry button: it says the question is asked (and billed) again, at about the usual price. */
export function retryKeyboard(ctx: BotContext, turn: number, model: TextModel): InlineKeyboard {
  return new InlineKeyboard().text(ctx.t('button-retry', { price: baseTokenCost(model) }), CHAT_RETRY.data(turn));
}

/** The user message of the turn: the text, plus the photo as an image part the core fetches and checks. */
async function userContent(ctx: BotContext, turn: ChatTurn): Promise<string | ChatInputPart[]> {
  if (!turn.image) return turn.text;
  const { api, token, apiRoot, settings } = ctx.deps;
  const file = await downloadTelegramFile(
    { api, token, apiRoot, maxBytes: settings.maxDownloadBytes },
    turn.image.fileId,
    turn.image.fileSize,
  );
  const url = toDataUri(file.data, sniffImage(file.data)?.mime ?? 'image/jpeg');
  return [
    { type: 'text', text: turn.text },
    { type: 'image_url', url },
  ];
}

/** One chat turn, with "typing…" shown from the question until the whole answer is on Telegram. */
export async function chatTurn(ctx: BotContext, turn: ChatTurn): Promise<void> {
  const chatId = ctx.chat?.id;
  if (chatId === undefined) return;
  await withChatAction(ctx.api, chatId, 'typing', () => answerTurn(ctx, turn), { log: ctx.deps.services.log });
}

/**
 * The model answers with the chat's persona and context, streamed into one message by edits; the answer ends with
 * a footer naming the model and the price, and a retry button.
 */
async function answerTurn(ctx: BotContext, turn: ChatTurn): Promise<void> {
  const account = ctx.account;
  const chatId = ctx.chat?.id;
  if (!account || chatId === undefined) return;
  const { services, settings, ownOrigin } = ctx.deps;
  const t = ctx.t;
  const replyParameters = turn.replyTo ? { reply_parameters: { message_id: turn.replyTo, allow_sending_without_reply: true } } : {};
  const model = await modelForTurn(ctx, turn);
  const persona = ctx.session.persona;
  const history = ctx.session.chat.messages;
  // Aborting stops the upstream request (the user cannot be answered); billing then settles what was delivered.
  const abort = new AbortController();
  let stream: ChatStream;
  try {
    const messages: ChatInputMessage[] = [
      ...(persona?.systemPrompt ? [{ role: 'system' as const, content: persona.systemPrompt }] : []),
      ...history,
      { role: 'user', content: await userContent(ctx, turn) },
    ];
    stream = await services.chat.stream(account, { model: model.slug, messages }, { source: 'bot', ownOrigins: [ownOrigin] }, abort.signal);
  } catch (err) {
    if (!isExpectedError(err)) services.log.error({ err }, 'bot chat failed');
    const message = await describeErrorForUser(err, t, ctx.locale, services.plans, audienceOf(chatId, ctx.me.username));
    await ctx.reply(message.text, { reply_markup: message.keyboard, ...replyParameters });
    return;
  }
  const reply = new StreamingReply(ctx.api, chatId, {
    intervalMs: settings.streamEditIntervalMs,
    maxLength: settings.maxMessageLength,
    placeholder: t('chat-thinking'),
    replyTo: turn.replyTo,
    log: services.log,
  });
  let failure: unknown;
  try {
    await reply.start();
  } catch (err) {
    abort.abort();
    failure = err;
  }
  try {
    // Always read the stream to its end: that is what settles (or releases) the reservation.
    for await (const event of stream.events) if (event.type === 'delta' && !abort.signal.aborted) reply.append(event.text);
  } catch (err) {
    failure ??= err;
  }
  const billed = await stream.billed;
  if (abort.signal.aborted) {
    services.log.warn({ err: failure, chatId }, 'chat reply could not be sent to Telegram');
    return;
  }
  if (failure !== undefined || billed.failed) {
    const kind = vendorFailureKind(failure);
    if (kind === undefined && isExpectedError(failure)) {
      // The user's situation (balance, limits, input), told like everywhere else in the bot.
      await reply.finish((await describeErrorForUser(failure, t, ctx.locale, services.plans, audienceOf(chatId, ctx.me.username))).text);
      return;
    }
    if ((kind ?? 'upstream') === 'upstream' && failure !== undefined) services.log.error({ err: failure }, 'bot chat stream failed');
    await reply.finish(failureText(kind ?? 'upstream', t, model.name));
    return;
  }
  const answer = reply.text;
  const turnNumber = (ctx.session.lastTurn?.turn ?? 0) + 1;
  await reply.finish(
    [
      answer.trim() === '' ? t('chat-empty-reply') : '',
      // A group sees what the answer cost, never the member's balance.
      isGroupChat(ctx.chat)
        ? t('chat-footer-group', { model: model.name, tokens: billed.tokensSpent })
        : t('chat-footer', { model: model.name, tokens: billed.tokensSpent, balance: billed.balance ?? '…' }),
    ]
      .filter(Boolean)
      .join('\n\n'),
    retryKeyboard(ctx, turnNumber, model),
  );
  const asked = turn.image ? `${IMAGE_MARK} ${turn.text}` : turn.text;
  ctx.session.chat.messages = trimHistory([...history, { role: 'user', content: asked }, { role: 'assistant', content: answer }], settings);
  const last: LastTurn = { turn: turnNumber, text: turn.text, image: turn.image, replyTo: turn.replyTo };
  ctx.session.lastTurn = last;
  // Voice answers (when on) follow in the background: the text answer is complete, the chat is free meanwhile.
  if (answer.trim() !== '') ctx.deps.tasks.run('voice answer', () => speakAnswer(ctx, answer, reply.messageIds.at(-1)));
}

/**
 * The retry button: asks the latest question again (billed again, as the button says). An older answer's button
 * only explains that it expired.
 */
export async function retryTurn(ctx: BotContext, turn: number): Promise<void> {
  const last = ctx.session.lastTurn;
  if (!ctx.account || !last || last.turn !== turn) {
    await ctx.answerCallbackQuery({ text: ctx.t('chat-retry-expired') });
    return;
  }
  const model = await modelForTurn(ctx, last);
  await ctx.answerCallbackQuery({ text: ctx.t('chat-retry-started', { price: baseTokenCost(model) }) });
  // The previous answer to this question leaves the context; the new one takes its place.
  const messages = ctx.session.chat.messages;
  const n = messages.length;
  if (n >= 2 && messages[n - 2].role === 'user' && messages[n - 1].role === 'assistant') ctx.session.chat.messages = messages.slice(0, -2);
  await chatTurn(ctx, { text: last.text, image: last.image, replyTo: last.replyTo });
}
