import { Composer, InlineKeyboard } from 'grammy';
import { canUseModel, findModel, listModels } from '../../core/catalog/catalog';
import type { ChatStream } from '../../core/generations/chat';
import { GenerationFailedError } from '../../core/generations/errors';
import { ProviderError, type ChatMessage } from '../../core/providers/types';
import { withChatAction } from '../chat-action';
import type { BotContext, BotSettings } from '../context';
import { describeErrorForUser, failureText, isExpectedError } from '../errors';
import { planNames } from '../format';
import { modelPickerKeyboard } from '../keyboards/models';
import { StreamingReply } from '../streaming-reply';
import { show } from './respond';
import { CHAT_MODEL, CHAT_NEW, MENU, onCallback } from '../callback-data';

/** Keeps the newest messages within the count and size bounds, starting with a user message. */
export function trimHistory(messages: ChatMessage[], settings: Pick<BotSettings, 'historyMessages' | 'historyCharacters'>): ChatMessage[] {
  const out = [...messages];
  const size = () => out.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : 0), 0);
  while (out.length > 0 && (out.length > settings.historyMessages || size() > settings.historyCharacters)) out.shift();
  while (out.length > 0 && out[0].role !== 'user') out.shift();
  return out;
}

async function showChat(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const { services } = ctx.deps;
  const model = await services.settings.chatModel(account.user.id, account.plan.slug);
  const kb = modelPickerKeyboard(ctx.t, listModels({ category: 'text' }), {
    plan: account.plan.slug,
    planNames: await planNames(services.plans),
    data: (slug) => CHAT_MODEL.data(slug),
    current: model.slug,
  });
  kb.text(ctx.t('button-new-chat'), CHAT_NEW.data).text(ctx.t('button-menu'), MENU.data('main'));
  await show(ctx, ctx.t('chat-intro', { model: model.name, messages: ctx.session.chat.messages.length }), kb);
}

/** One chat turn, with "typing…" shown from the question until the whole answer is on Telegram. */
async function chatTurn(ctx: BotContext, text: string): Promise<void> {
  const chatId = ctx.chat?.id;
  if (chatId === undefined) return;
  await withChatAction(ctx.api, chatId, 'typing', () => answerTurn(ctx, text), { log: ctx.deps.services.log });
}

/** The text model answers with the chat's context, streamed into one message by edits. */
async function answerTurn(ctx: BotContext, text: string): Promise<void> {
  const account = ctx.account;
  const chatId = ctx.chat?.id;
  if (!account || chatId === undefined) return;
  const { services, settings, publicBase } = ctx.deps;
  const t = ctx.t;
  const model = await services.settings.chatModel(account.user.id, account.plan.slug);
  const messages: ChatMessage[] = [...ctx.session.chat.messages, { role: 'user', content: text }];
  const replyTo = ctx.message?.message_id;
  // Aborting stops the upstream request (the user cannot be answered); billing then settles what was delivered.
  const abort = new AbortController();
  let stream: ChatStream;
  try {
    stream = await services.chat.stream(
      account,
      { model: model.slug, messages },
      { source: 'bot', ownOrigins: [publicBase] },
      abort.signal,
    );
  } catch (err) {
    if (!isExpectedError(err)) services.log.error({ err }, 'bot chat failed');
    const message = await describeErrorForUser(err, t, ctx.locale, services.plans);
    await ctx.reply(message.text, { reply_markup: message.keyboard, reply_parameters: replyTo ? { message_id: replyTo } : undefined });
    return;
  }
  const reply = new StreamingReply(ctx.api, chatId, {
    intervalMs: settings.streamEditIntervalMs,
    maxLength: settings.maxMessageLength,
    placeholder: t('chat-thinking'),
    replyTo,
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
    const kind = failure instanceof ProviderError || failure instanceof GenerationFailedError ? failure.kind : 'upstream';
    if (kind === 'upstream' && failure !== undefined) services.log.error({ err: failure }, 'bot chat stream failed');
    await reply.finish(failureText(kind, t, model.name));
    return;
  }
  const answer = reply.text;
  await reply.finish(
    [
      answer.trim() === '' ? t('chat-empty-reply') : '',
      t('chat-footer', { model: model.name, tokens: billed.tokensSpent, balance: billed.balance ?? '…' }),
    ]
      .filter(Boolean)
      .join('\n\n'),
  );
  ctx.session.chat.messages = trimHistory([...messages, { role: 'assistant', content: answer }], settings);
}

/** Chat with the selected text model: model picker, /new, and free text. */
export function chatFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('chat', showChat);
  composer.callbackQuery(MENU.data('chat'), showChat);

  onCallback(composer, CHAT_MODEL, async (ctx, slug) => {
    const account = ctx.account;
    const model = findModel(slug);
    if (!account || !model || model.category !== 'text') return ctx.answerCallbackQuery();
    if (!canUseModel(account.plan.slug, model)) {
      const names = await planNames(ctx.deps.services.plans);
      return ctx.answerCallbackQuery({
        text: ctx.t('model-locked', { model: model.name, plan: names[model.minPlan] ?? model.minPlan }),
        show_alert: true,
      });
    }
    await ctx.deps.services.settings.setChatModel(account.user.id, account.plan.slug, model.slug);
    await ctx.answerCallbackQuery({ text: ctx.t('chat-model-set', { model: model.name }) });
    await showChat(ctx);
  });

  const reset = async (ctx: BotContext) => {
    ctx.session.chat.messages = [];
    if (ctx.callbackQuery) await ctx.answerCallbackQuery();
    await ctx.reply(ctx.t('chat-reset'), { reply_markup: new InlineKeyboard().text(ctx.t('button-menu'), MENU.data('main')) });
  };
  composer.command('new', reset);
  composer.callbackQuery(CHAT_NEW.data, reset);

  composer.on('message:text', async (ctx, next) => {
    if (ctx.message.text.startsWith('/')) return next();
    await chatTurn(ctx, ctx.message.text);
  });

  return composer;
}
