import { Composer } from 'grammy';
import type { BotContext } from '../context';
import { isGroupChat } from '../group/chats';
import { mainMenuKeyboard } from '../keyboards/main-menu';

/** Last in line: stale buttons and messages no feature took. */
export function unhandledFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.on('callback_query', (ctx) => ctx.answerCallbackQuery({ text: ctx.t('button-expired') }));
  composer.on('message', (ctx) =>
    isGroupChat(ctx.chat)
      ? ctx.reply(ctx.t('group-unhandled', { bot: ctx.me.username }), { reply_parameters: { message_id: ctx.message.message_id } })
      : ctx.reply(ctx.t('unhandled-message'), { reply_markup: mainMenuKeyboard(ctx.t) }),
  );
  return composer;
}
