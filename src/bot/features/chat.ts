import { Composer, InlineKeyboard } from 'grammy';
import { canUseModel, findModel, listModels } from '../../core/catalog/catalog';
import { chatTurn, retryTurn } from '../services/chat-turn';
import { isGroupChat } from '../group/chats';
import type { BotContext } from '../context';
import { imageOfMessage } from '../conversations/wizard';
import { planNames } from '../render/format';
import { modelPickerKeyboard } from '../keyboards/models';
import { photoRequest } from './photos';
import { show } from './respond';
import { CHAT_MODEL, CHAT_NEW, CHAT_RETRY, MENU, onCallback, PERSONAS } from '../callback-data';

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
  kb.text(ctx.t('button-persona'), PERSONAS.data).row();
  kb.text(ctx.t('button-new-chat'), CHAT_NEW.data).text(ctx.t('button-menu'), MENU.data('main'));
  const persona = ctx.session.persona?.name ?? ctx.t('persona-none');
  await show(ctx, ctx.t('chat-intro', { model: model.name, persona, messages: ctx.session.chat.messages.length }), kb);
}

/** Chat with the selected text model: model picker, /new, free text, questions about a replied-to photo, retry. */
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
    ctx.session.chat = { messages: [] };
    if (ctx.callbackQuery) await ctx.answerCallbackQuery();
    // The menu lives in the private chat; a group member just carries on.
    const menu = isGroupChat(ctx.chat) ? {} : { reply_markup: new InlineKeyboard().text(ctx.t('button-menu'), MENU.data('main')) };
    await ctx.reply(ctx.t('chat-reset'), menu);
  };
  composer.command('new', reset);
  composer.callbackQuery(CHAT_NEW.data, reset);

  composer.on('message:text', async (ctx, next) => {
    const text = ctx.message.text;
    if (text.startsWith('/')) return next();
    // "@bot" alone in a group (the mention is taken out of the text): ask for the question.
    if (text.trim() === '') {
      await ctx.reply(ctx.t('group-empty-mention'), { reply_parameters: { message_id: ctx.message.message_id } });
      return;
    }
    // A reply to a photo is about that photo: a tool keyword runs the tool, anything else is a vision question.
    const photo = ctx.message.reply_to_message ? imageOfMessage(ctx.message.reply_to_message) : undefined;
    if (photo) return photoRequest(ctx, photo, text);
    await chatTurn(ctx, { text, replyTo: ctx.message.message_id });
  });

  onCallback(composer, CHAT_RETRY, retryTurn);

  return composer;
}
