import { InlineKeyboard } from 'grammy';
import type { InlineKeyboardMarkup, Message } from 'grammy/types';
import { WIZARD, type WizardValue } from '../callback-data';
import type { BotContext, BotConversation, ConvContext } from '../context';
import { audienceOf, describeErrorForUser, isExpectedError } from '../errors';
import type { Translate } from '../i18n';
import { isGroupChat } from '../group/chats';
import { backToMenuKeyboard } from '../keyboards/main-menu';

/**
 * Small steps shared by the multi-step conversations. Every wizard has a nonce in its button data
 * (`WIZARD` in callback-data: `cv:<nonce>:<value>`), so buttons of an earlier, finished wizard are recognised as stale. A command or a button
 * of another menu leaves the wizard and is then handled as usual (the user changed their mind).
 */
export interface Wizard {
  conversation: BotConversation;
  t: Translate;
  nonce: string;
  /**
   * A photo sent while the wizard waits for a button or text starts over with that photo (the photo feature takes
   * it: a tool caption runs, a question goes to a vision model, no caption opens a new picker for it).
   */
  restartOnPhoto?: boolean;
  /** The wizard's own message (the one its steps edit), once there is one. */
  messageId?: number;
}

export interface ImageRef {
  fileId: string;
  fileSize?: number;
  /** The type Telegram gives: photos are always JPEG; an image sent as a file keeps its own (PNG, WebP…). */
  mime?: string;
}

export async function openWizard(conversation: BotConversation, t: Translate): Promise<Wizard> {
  const nonce = Math.floor((await conversation.random()) * 36 ** 5)
    .toString(36)
    .padStart(5, '0');
  return { conversation, t, nonce };
}

/**
 * A step that waits for a message (text or a photo). In a group the bot only hears replies to its messages (privacy
 * mode), so the step says to reply.
 */
export function messageStep(ctx: ConvContext, t: Translate, question: string): string {
  return isGroupChat(ctx.chat) ? `${question}\n\n${t('group-reply-hint')}` : question;
}

export function button(w: Wizard, value: WizardValue): string {
  return WIZARD.data({ nonce: w.nonce, value });
}

/** The value of this wizard's button, if the update is a press of one. */
function pressedValue(w: Wizard, ctx: ConvContext): WizardValue | undefined {
  const press = WIZARD.parse(ctx.callbackQuery?.data);
  return press?.nonce === w.nonce ? press.value : undefined;
}

export function cancelKeyboard(w: Wizard): InlineKeyboard {
  return new InlineKeyboard().text(w.t('button-cancel'), button(w, 'x'));
}

/** Buttons of other menus, commands, and questions about a photo (replies to one): the user left the wizard. */
function isEscape(ctx: ConvContext): boolean {
  const data = ctx.callbackQuery?.data;
  if (data !== undefined) return !WIZARD.filter.test(data);
  const text = ctx.message?.text ?? ctx.message?.caption;
  if (ctx.message?.text !== undefined && ctx.message.reply_to_message && imageOfMessage(ctx.message.reply_to_message)) return true;
  return typeof text === 'string' && text.startsWith('/');
}

/** Leaves the wizard for escapes; otherwise explains what the current step expects. */
async function notExpected(w: Wizard, ctx: ConvContext, hint: string): Promise<void> {
  if (/^\/cancel(@\w+)?$/.test(ctx.message?.text ?? '')) {
    await finishCancelled(w, ctx, w.messageId);
    await w.conversation.halt();
  }
  if (isEscape(ctx)) await w.conversation.halt({ next: true });
  if (w.restartOnPhoto && imageOf(ctx)) {
    if (w.messageId) await ctx.api.editMessageText(ctx.chat!.id, w.messageId, w.t('tools-photo-replaced')).catch(() => undefined);
    await w.conversation.halt({ next: true });
  }
  if (ctx.callbackQuery) {
    await ctx.answerCallbackQuery({ text: w.t('wizard-stale-button') });
    return;
  }
  if (ctx.message) await ctx.reply(hint, { reply_markup: cancelKeyboard(w) });
}

export interface Pressed {
  value: WizardValue;
  ctx: ConvContext;
}

/** Waits for a button of this wizard (the callback query is left for the caller to answer). */
export async function waitButton(w: Wizard, hint = w.t('wizard-use-buttons')): Promise<Pressed> {
  for (;;) {
    const ctx = await w.conversation.wait();
    const value = pressedValue(w, ctx);
    if (value !== undefined) return { value, ctx };
    await notExpected(w, ctx, hint);
  }
}

/** Waits for a text message; null when the wizard's cancel button was pressed. */
export async function waitText(w: Wizard, hint: string): Promise<{ text: string; ctx: ConvContext } | null> {
  for (;;) {
    const ctx = await w.conversation.wait();
    if (pressedValue(w, ctx) === 'x') {
      await ctx.answerCallbackQuery();
      return null;
    }
    const text = ctx.message?.text;
    if (text !== undefined && !text.startsWith('/') && text.trim() !== '') return { text: text.trim(), ctx };
    await notExpected(w, ctx, hint);
  }
}

/** The largest size of a message's photo, or an image sent as a file. */
export function imageOfMessage(message: Pick<Message, 'photo' | 'document'>): ImageRef | undefined {
  const photos = message.photo;
  if (photos && photos.length > 0) {
    const best = photos[photos.length - 1];
    return { fileId: best.file_id, fileSize: best.file_size, mime: 'image/jpeg' };
  }
  const doc = message.document;
  if (doc && doc.mime_type?.startsWith('image/')) return { fileId: doc.file_id, fileSize: doc.file_size, mime: doc.mime_type };
  return undefined;
}

/** The image of the update's message, if it has one. */
export function imageOf(ctx: ConvContext): ImageRef | undefined {
  return ctx.message ? imageOfMessage(ctx.message) : undefined;
}

/**
 * Waits for a photo; null when cancelled, `'skip'` when the step is `skippable` and its Skip button was pressed. A
 * caption that comes with the photo is returned too.
 */
export async function waitPhoto(
  w: Wizard,
  hint: string,
  skippable: boolean,
): Promise<{ image: ImageRef; caption?: string } | 'skip' | null> {
  for (;;) {
    const ctx = await w.conversation.wait();
    const value = pressedValue(w, ctx);
    if (value === 'x' || (value === 'skip' && skippable)) {
      await ctx.answerCallbackQuery();
      return value === 'x' ? null : 'skip';
    }
    const image = imageOf(ctx);
    if (image && !isEscape(ctx)) return { image, caption: ctx.message?.caption?.trim() || undefined };
    await notExpected(w, ctx, hint);
  }
}

/** Ends the wizard with a short note (editing the wizard message when given). */
export async function finishWizard(ctx: ConvContext, text: string, messageId?: number, keyboard?: InlineKeyboard): Promise<void> {
  const chatId = ctx.chat?.id;
  const extra = keyboard ? { reply_markup: keyboard } : {};
  if (messageId && chatId !== undefined) {
    const edited = await ctx.api.editMessageText(chatId, messageId, text, extra).then(
      () => true,
      () => false,
    );
    if (edited) return;
  }
  await ctx.reply(text, extra);
}

/** Ends the wizard as cancelled, with the way back to the menu (never a dead end). */
export function finishCancelled(w: Wizard, ctx: ConvContext, messageId?: number): Promise<void> {
  return finishWizard(ctx, w.t('wizard-cancelled'), messageId, backToMenuKeyboard(w.t));
}

/** Why a run cannot go ahead, in the user's words (stored in the conversation's log, so plain data). */
export interface Refusal {
  text: string;
  keyboard?: InlineKeyboardMarkup;
}

/**
 * Runs a preflight check (limits, balance, plan) outside the conversation; the refusal to show, or null when the
 * run may go ahead. Any other failure propagates.
 */
export function preflight(w: Wizard, check: (octx: BotContext) => Promise<void>): Promise<Refusal | null> {
  return w.conversation.external(async (octx) => {
    try {
      await check(octx);
      return null;
    } catch (err) {
      if (!isExpectedError(err)) throw err;
      const message = await describeErrorForUser(
        err,
        octx.t,
        octx.locale,
        octx.deps.services.plans,
        audienceOf(octx.chat?.id, octx.me.username),
      );
      return { text: message.text, keyboard: message.keyboard ? { inline_keyboard: message.keyboard.inline_keyboard } : undefined };
    }
  });
}

/** Shows a refusal (editing the wizard message when given) and so ends the wizard. */
export async function showRefusal(ctx: ConvContext, refusal: Refusal, messageId?: number): Promise<void> {
  const extra = refusal.keyboard ? { reply_markup: refusal.keyboard } : {};
  if (messageId !== undefined) {
    const edited = await ctx.api.editMessageText(ctx.chat!.id, messageId, refusal.text, extra).then(
      () => true,
      () => false,
    );
    if (edited) return;
  }
  await ctx.reply(refusal.text, extra);
}
