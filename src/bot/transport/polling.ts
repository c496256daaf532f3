import { run, type RunnerHandle } from '@grammyjs/runner';
import type { Update } from 'grammy/types';
import type { TelegramBot } from '../bot';
import { registerCommands } from './commands';
import { setMiniAppMenuButton } from './menu-button';

/**
 * Every update type the bot handles. Telegram delivers only the types named here (polling and webhook alike): a
 * type left out never arrives, so Stars checkouts (`pre_checkout_query`) would time out and be cancelled.
 */
export const ALLOWED_UPDATES = [
  'message',
  'callback_query',
  'pre_checkout_query',
  'my_chat_member',
  // The user pressed stop on a draft (sendMessageDraft with can_stop).
  'stopped_message_generation',
] as const satisfies readonly Exclude<keyof Update, 'update_id'>[];

/** The commands and the menu button (the Mini App), once the bot knows who it is; a failure only warns. */
async function setUpChats(app: TelegramBot): Promise<void> {
  const { bot, deps } = app;
  const { log, config } = deps.services;
  await registerCommands(bot.api, deps.i18n).catch((err: unknown) => log.warn({ err }, 'bot commands not registered'));
  await setMiniAppMenuButton(bot.api, deps.i18n, config.publicUrl).catch((err: unknown) =>
    log.warn({ err }, 'the bot’s menu button (the Mini App) was not set'),
  );
}

/**
 * Long polling with @grammyjs/runner: updates of different chats run concurrently, one chat's in order
 * (`sequentialize` in createBot). Only one process may poll a bot; several instances need the webhook.
 */
export async function startPolling(app: TelegramBot): Promise<RunnerHandle> {
  const { bot, deps } = app;
  await bot.init();
  await bot.api.deleteWebhook();
  await setUpChats(app);
  const handle = run(bot, { runner: { fetch: { allowed_updates: ALLOWED_UPDATES } } });
  deps.services.log.info({ bot: bot.botInfo.username }, 'Telegram bot polling');
  return handle;
}

/** Points Telegram at the webhook URL (`<PUBLIC_URL>/telegram/webhook`) with the secret token it must send back. */
export async function registerWebhook(app: TelegramBot, url: string, secret: string): Promise<string> {
  const { bot, deps } = app;
  await bot.init();
  await bot.api.setWebhook(url, { secret_token: secret, allowed_updates: ALLOWED_UPDATES });
  await setUpChats(app);
  deps.services.log.info({ bot: bot.botInfo.username, url }, 'Telegram bot webhook set');
  return url;
}
