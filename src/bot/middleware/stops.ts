import type { MiddlewareFn } from 'grammy';
import { CHAT_STOP } from '../callback-data';
import type { BotContext } from '../context';
import { commandOf } from '../group/private-screens';
import { localeFromTelegram, type I18n } from '../i18n';
import type { RunningAnswers } from '../services/running-answers';
import { topicOf } from '../transport/topics';

/**
 * Stops of answers being written: Telegram's stop button on a draft (`stopped_message_generation`), the Stop button
 * under an answer streamed by edits, and /stop. Handled before updates are queued per chat: the answer being
 * stopped still holds its chat's queue. A stop ends only an answer of the user who sent it.
 */
export function answerStops(answers: RunningAnswers, i18n: I18n): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const stopped = ctx.update.stopped_message_generation;
    if (stopped) {
      answers.stop({ kind: 'draft', chatId: stopped.chat.id, threadId: stopped.message_thread_id, draftId: stopped.draft_id });
      return;
    }
    const from = ctx.from;
    const t = i18n.translator(localeFromTelegram(from?.language_code));
    const press = CHAT_STOP.parse(ctx.callbackQuery?.data);
    if (press !== undefined && from) {
      const here = answers.stop({ kind: 'answer', answerId: press, userId: from.id });
      const text = here > 0 ? t('stop-done') : answers.ownedByOther(press, from.id) ? t('group-button-not-yours') : t('stop-requested');
      await ctx.answerCallbackQuery({ text });
      return;
    }
    if (commandOf(ctx.message?.text) === 'stop' && ctx.chat && from) {
      const here = answers.stop({ kind: 'user', chatId: ctx.chat.id, threadId: topicOf(ctx), userId: from.id });
      if (here === 0) await ctx.reply(t('stop-nothing'), { reply_parameters: { message_id: ctx.message!.message_id } });
      return;
    }
    await next();
  };
}
