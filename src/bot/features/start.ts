import { Composer } from 'grammy';
import type { BotContext } from '../context';
import { backToMenuKeyboard, mainMenuKeyboard } from '../keyboards/main-menu';
import { show } from './respond';
import { MENU } from '../callback-data';

/** /start, the main menu, /help and /cancel. */
export function startFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('start', async (ctx) => {
    await ctx.conversation.exitAll();
    const account = ctx.account;
    if (!account) return;
    const balance = await ctx.deps.services.profiles.totalTokens(account.user.id);
    const args = { name: account.user.name, plan: account.plan.name, balance };
    await ctx.reply(account.isNew ? ctx.t('start-welcome-new', args) : ctx.t('start-welcome-back', args), {
      reply_markup: mainMenuKeyboard(ctx.t),
    });
  });

  const menu = async (ctx: BotContext) => {
    await ctx.conversation.exitAll();
    await show(ctx, ctx.t('menu-title'), mainMenuKeyboard(ctx.t));
  };
  composer.command('menu', menu);
  composer.callbackQuery(MENU.data('main'), menu);

  const help = (ctx: BotContext) => show(ctx, ctx.t('help-text'), backToMenuKeyboard(ctx.t));
  composer.command('help', help);
  composer.callbackQuery(MENU.data('help'), help);

  composer.command('cancel', async (ctx) => {
    const active = Object.keys(ctx.conversation.active()).length > 0;
    await ctx.conversation.exitAll();
    await ctx.reply(active ? ctx.t('wizard-cancelled') : ctx.t('cancel-nothing'), { reply_markup: mainMenuKeyboard(ctx.t) });
  });

  return composer;
}
