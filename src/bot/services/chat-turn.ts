import crypto from 'node:crypto';
import { InlineKeyboard } from 'grammy';
import { baseTokenCost } from '../../core/catalog/pricing';
import type { TextModel } from '../../core/catalog/types';
import type { ChatStream } from '../../core/generations/chat/types';
import type { ChatInputMessage, ChatInputPart } from '../../core/generations/chat/request';
import { sniffImage } from '../../core/media/sniff';
import type { ChatMessage } from '../../core/providers/types';
import { CHAT_RETRY, CHAT_STOP } from '../callback-data';
import { withChatAction } from '../transport/chat-action';
import type { BotContext, BotSettings, ChatDocument, LastTurn } from '../context';
import { audienceOf, describeErrorForUser, failureText, isExpectedError, vendorFailureKind } from '../errors';
import { isGroupChat } from '../group/chats';
import { DraftReply, DraftsUnavailableError, type AnswerReply } from '../transport/draft-reply';
import { StreamingReply } from '../transport/streaming-reply';
import { topicOf } from '../transport/topics';
import type { RunningAnswer } from './running-answers';
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

/** A document's text as the model reads it: marked with its name (and pages), so answers can refer to it. */
function documentText(doc: ChatDocument): string {
  const pages = doc.pages ? ` pages="${doc.pages}"` : '';
  return `<document name="${doc.name.replace(/"/g, "'")}"${pages}>\n${doc.text}\n</document>`;
}

/**
 * The conversation's documents, as the question's first parts: a PDF itself to a model that reads PDFs (downloaded
 * again from Telegram for each question), any other document (or a PDF for another model) as its text.
 */
async function documentParts(ctx: BotContext, model: TextModel): Promise<ChatInputPart[]> {
  const docs = ctx.session.chat.documents ?? [];
  if (docs.length === 0) return [];
  const { api, token, apiRoot, settings, services } = ctx.deps;
  const readsPdf = services.chat.readsDocuments(model);
  const parts: ChatInputPart[] = [];
  for (const doc of docs) {
    if (doc.kind === 'pdf' && readsPdf) {
      const file = await downloadTelegramFile({ api, token, apiRoot, maxBytes: settings.maxDownloadBytes }, doc.fileId, doc.fileSize);
      parts.push({ type: 'file', mime: 'application/pdf', data: file.data, filename: doc.name });
    } else {
      parts.push({ type: 'text', text: documentText(doc) });
    }
  }
  return parts;
}

/** The user message of the turn: the documents, the text, and the photo as an image part the core fetches and checks. */
async function userContent(ctx: BotContext, turn: ChatTurn, model: TextModel): Promise<string | ChatInputPart[]> {
  const documents = await documentParts(ctx, model);
  if (!turn.image && documents.length === 0) return turn.text;
  const parts: ChatInputPart[] = [...documents, { type: 'text', text: turn.text }];
  if (turn.image) {
    const { api, token, apiRoot, settings } = ctx.deps;
    const file = await downloadTelegramFile(
      { api, token, apiRoot, maxBytes: settings.maxDownloadBytes },
      turn.image.fileId,
      turn.image.fileSize,
    );
    parts.push({ type: 'image_url', url: toDataUri(file.data, sniffImage(file.data)?.mime ?? 'image/jpeg') });
  }
  return parts;
}

/** One chat turn, with "typing…" shown from the question until the whole answer is on Telegram. */
export async function chatTurn(ctx: BotContext, turn: ChatTurn): Promise<void> {
  const chatId = ctx.chat?.id;
  if (chatId === undefined) return;
  await withChatAction(ctx.api, chatId, 'typing', () => answerTurn(ctx, turn), { log: ctx.deps.services.log });
}

/** A non-zero draft id (Telegram animates changes of one draft id). */
function newDraftId(): number {
  return crypto.randomInt(1, 2 ** 31 - 1);
}

/**
 * How the answer is written: in a private chat as Telegram drafts (with their stop button) while the Bot API takes
 * them, else by editing one message, with a Stop button under it while it streams.
 */
async function openReply(ctx: BotContext, running: RunningAnswer, replyTo: number | undefined): Promise<AnswerReply> {
  const { settings, services, drafts } = ctx.deps;
  const chatId = ctx.chat!.id;
  const threadId = topicOf(ctx);
  if (running.draftId !== undefined) {
    const draft = new DraftReply(ctx.api, chatId, {
      intervalMs: settings.streamEditIntervalMs,
      maxLength: settings.maxMessageLength,
      draftId: running.draftId,
      replyTo,
      threadId,
      log: services.log,
    });
    try {
      await draft.start();
      return draft;
    } catch (err) {
      if (!(err instanceof DraftsUnavailableError)) throw err;
      services.log.warn({ err: err.refusal }, 'the Bot API refused sendMessageDraft: answers are streamed by edits');
      drafts.available = false;
    }
  }
  const reply = new StreamingReply(ctx.api, chatId, {
    intervalMs: settings.streamEditIntervalMs,
    maxLength: settings.maxMessageLength,
    placeholder: ctx.t('chat-thinking'),
    replyTo,
    liveKeyboard: new InlineKeyboard().text(ctx.t('button-stop'), CHAT_STOP.data(running.id)),
    log: services.log,
  });
  await reply.start();
  return reply;
}

/**
 * The model answers with the chat's persona and context, streamed as it comes; the answer ends with a footer naming
 * the model and the price, and a retry button. A stop ends the vendor call at once: the answer keeps what was
 * delivered, and that is what is billed.
 */
async function answerTurn(ctx: BotContext, turn: ChatTurn): Promise<void> {
  const account = ctx.account;
  const chatId = ctx.chat?.id;
  if (!account || chatId === undefined) return;
  const { services, settings, ownOrigin, answers, drafts } = ctx.deps;
  const t = ctx.t;
  const replyParameters = turn.replyTo ? { reply_parameters: { message_id: turn.replyTo, allow_sending_without_reply: true } } : {};
  const model = await modelForTurn(ctx, turn);
  const persona = ctx.session.persona;
  const history = ctx.session.chat.messages;
  const isPrivate = ctx.chat?.type === 'private';
  const running = answers.begin(
    { chatId, threadId: topicOf(ctx), userId: ctx.from?.id ?? account.user.id },
    isPrivate && drafts.available ? newDraftId() : undefined,
  );
  // Aborting stops the upstream request: on a stop, or when the user cannot be answered. Billing then settles what
  // was delivered.
  const upstream = new AbortController();
  const onStop = () => upstream.abort();
  running.signal.addEventListener('abort', onStop, { once: true });
  try {
    let stream: ChatStream;
    try {
      const messages: ChatInputMessage[] = [
        ...(persona?.systemPrompt ? [{ role: 'system' as const, content: persona.systemPrompt }] : []),
        ...history,
        { role: 'user', content: await userContent(ctx, turn, model) },
      ];
      stream = await services.chat.stream(
        account,
        { model: model.slug, messages },
        { source: 'bot', ownOrigins: [ownOrigin] },
        upstream.signal,
      );
    } catch (err) {
      if (running.stopped) {
        await ctx.reply(t('chat-stopped-before'), replyParameters);
        return;
      }
      if (!isExpectedError(err)) services.log.error({ err }, 'bot chat failed');
      const message = await describeErrorForUser(err, t, ctx.locale, services.plans, audienceOf(chatId, ctx.me.username));
      await ctx.reply(message.text, { reply_markup: message.keyboard, ...replyParameters });
      return;
    }
    let reply: AnswerReply | undefined;
    let failure: unknown;
    let telegramFailed = false;
    try {
      reply = await openReply(ctx, running, turn.replyTo);
    } catch (err) {
      telegramFailed = true;
      upstream.abort();
      failure = err;
    }
    try {
      // Always read the stream to its end: that is what settles (or releases) the reservation.
      for await (const event of stream.events) if (event.type === 'delta' && !telegramFailed) reply?.append(event.text);
    } catch (err) {
      failure ??= err;
    }
    const billed = await stream.billed;
    if (telegramFailed || !reply) {
      services.log.warn({ err: failure, chatId }, 'chat reply could not be sent to Telegram');
      return;
    }
    const answer = reply.text;
    const stopped = running.stopped;
    if (!stopped && (failure !== undefined || billed.failed)) {
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
    const turnNumber = (ctx.session.lastTurn?.turn ?? 0) + 1;
    const args = { model: model.name, tokens: billed.tokensSpent, balance: billed.balance ?? '…' };
    await reply.finish(
      [
        stopped ? t('chat-stopped') : answer.trim() === '' ? t('chat-empty-reply') : '',
        // A group sees what the answer cost, never the member's balance.
        isGroupChat(ctx.chat) ? t('chat-footer-group', args) : t('chat-footer', args),
      ]
        .filter(Boolean)
        .join('\n\n'),
      retryKeyboard(ctx, turnNumber, model),
    );
    const asked = turn.image ? `${IMAGE_MARK} ${turn.text}` : turn.text;
    // What was delivered is the answer the conversation goes on from, stopped or not.
    ctx.session.chat.messages = trimHistory(
      [...history, { role: 'user', content: asked }, { role: 'assistant', content: answer }],
      settings,
    );
    const last: LastTurn = { turn: turnNumber, text: turn.text, image: turn.image, replyTo: turn.replyTo };
    ctx.session.lastTurn = last;
    // Voice answers (when on) follow in the background: the text answer is complete, the chat is free meanwhile.
    if (answer.trim() !== '' && !stopped) ctx.deps.tasks.run('voice answer', () => speakAnswer(ctx, answer, reply.messageIds.at(-1)));
  } finally {
    running.signal.removeEventListener('abort', onStop);
    running.done();
  }
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
