// Public surface of the Telegram bot front end.
export { createBot, TELEGRAM_API_ROOT, type BotOptions, type TelegramBot } from './bot';
export { startPolling, registerWebhook, ALLOWED_UPDATES } from './transport/polling';
export { telegramWebhook, WEBHOOK_PATH, SECRET_HEADER } from './transport/webhook';
export { DEFAULT_BOT_SETTINGS, type BotContext, type BotDeps, type BotSettings } from './context';
export { I18n, BOT_LOCALES, type Locale } from './i18n';
