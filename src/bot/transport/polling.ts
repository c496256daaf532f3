import { run, type RunnerHandle } from '@grammyjs/runner';
import type { Update } from 'grammy/types';
import type { TelegramBot } from '../bot';
import { registerCommands } from './commands';

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

/**
 * Long polling with @grammyjs/runner: updates of different chats run concurrently, one chat's in order
 * (`sequentialize` in createBot). Only one process may poll a bot; several instances need the webhook.
 */
export async function startPolling(app: TelegramBot): Promise<RunnerHandle> {
  const { bot, deps } = app;
  await bot.init();
  await bot.api.deleteWebhook();
  await registerCommands(bot.api, deps.i18n).catch((err: unknown) => deps.services.log.warn({ err }, 'bot commands not registered'));
  const handle = run(bot, { runner: { fetch: { allowed_updates: ALLOWED_UPDATES } } });
  deps.services.log.info({ bot: bot.botInfo.username }, 'Telegram bot polling');
  return handle;
}

/** Points Telegram at the webhook URL (`<PUBLIC_URL>/telegram/webhook`) with the secret token it must send back. */
export async function registerWebhook(app: TelegramBot, url: string, secret: string): Promise<string> {
  const { bot, deps } = app;
  await bot.init();
  await bot.api.setWebhook(url, { secret_token: secret, allowed_updates: ALLOWED_UPDATES });
  await registerCommands(bot.api, deps.i18n).catch((err: unknown) => deps.services.log.warn({ err }, 'bot commands not registered'));
  deps.services.log.info({ bot: bot.botInfo.username, url }, 'Telegram bot webhook set');
  return url;
}
