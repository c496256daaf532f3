import { Composer } from 'grammy';
import type { BotContext } from '../context';
import { backToMenuKeyboard, mainMenuKeyboard } from '../keyboards/main-menu';
import { show } from './respond';
import { MENU } from '../callback-data';
import { onReferralStart } from './referral-start';

/**
 * Deep links (`t.me/<bot>?start=<screen>`, and the links of the group notes' buttons) and the command whose screen
 * each opens. `group` is the welcome; `ref_<code>` is a referral link.
 */
export const DEEP_LINKS: Readonly<Record<string, string>> = {
  menu: 'menu',
  balance: 'balance',
  buy: 'buy',
  plans: 'plans',
  paysupport: 'paysupport',
  settings: 'settings',
  referral: 'referral',
  stats: 'stats',
  history: 'history',
  admin: 'admin',
  chat: 'chat',
  mode: 'mode',
  transcribe: 'transcribe',
  help: 'help',
};

const REFERRAL = /^ref_([A-Za-z0-9_-]{1,60})$/;

/** The update's /start becomes the command of its screen, for the features further on to handle as their own. */
function becomeCommand(ctx: BotContext, command: string): void {
  const message = ctx.message as { text?: string; entities?: { type: 'bot_command'; offset: number; length: number }[] };
  message.text = `/${command}`;
  message.entities = [{ type: 'bot_command', offset: 0, length: command.length + 1 }];
}

async function welcome(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const balance = await ctx.deps.services.profiles.totalTokens(account.user.id);
  const args = { name: account.user.name, plan: account.plan.name, balance };
  await ctx.reply(account.isNew ? ctx.t('start-welcome-new', args) : ctx.t('start-welcome-back', args), {
    reply_markup: mainMenuKeyboard(ctx.t),
  });
}

/** /start (with its deep links), the main menu, /help and /cancel. */
export function startFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('start', async (ctx, next) => {
    await ctx.conversation.exitAll();
    if (!ctx.account) return;
    const param = ctx.match.trim();
    const screen = Object.hasOwn(DEEP_LINKS, param) ? DEEP_LINKS[param] : undefined;
    if (screen) {
      // A first contact is welcomed before the screen it asked for.
      if (ctx.account.isNew) await welcome(ctx);
      becomeCommand(ctx, screen);
      return next();
    }
    const referral = REFERRAL.exec(param);
    // Tied first, so the welcome comes with the invitation's note after it.
    const note = referral ? await onReferralStart(ctx, referral[1]) : undefined;
    await welcome(ctx);
    if (note) await ctx.reply(note);
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
