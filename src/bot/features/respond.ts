import type { InlineKeyboard } from 'grammy';
import type { BotContext } from '../context';

/**
 * Shows a screen: from a menu button the button's message is edited in place (a menu you move through), from a
 * command a new message is sent.
 */
export async function show(ctx: BotContext, text: string, keyboard?: InlineKeyboard): Promise<void> {
  if (ctx.callbackQuery?.message) {
    await ctx.answerCallbackQuery().catch(() => undefined);
    const edited = await ctx.editMessageText(text, { reply_markup: keyboard }).then(
      () => true,
      (err: unknown) => /message is not modified/i.test(String((err as Error).message)),
    );
    if (edited) return;
  }
  await ctx.reply(text, { reply_markup: keyboard });
}
