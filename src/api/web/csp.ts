import type { AppConfig } from '../../config';

/** Where Telegram's Mini App script (telegram-web-app.js) comes from, and the Telegram client that frames Mini Apps. */
const WEB_APP_SCRIPT_ORIGIN = 'https://telegram.org';
const TELEGRAM_WEB_CLIENT = 'https://web.telegram.org';

/**
 * The Content-Security-Policy of the dashboard's HTML: scripts and styles from this origin only (the build emits
 * no inline code), plus, when a bot runs, the Telegram Login Widget's and Mini App script's origins, Telegram's
 * sign-in frames, and Telegram Web, which shows a Mini App in a frame.
 */
export function dashboardCsp(config: AppConfig): string {
  const bot = Boolean(config.bot.token);
  const scriptOrigins = bot ? [...new Set([config.telegramWidgetOrigin, WEB_APP_SCRIPT_ORIGIN])] : [];
  return [
    "default-src 'self'",
    ['script-src', "'self'", ...scriptOrigins].join(' '),
    "style-src 'self'",
    "img-src 'self' data: blob: https:",
    "media-src 'self' blob: https:",
    "connect-src 'self'",
    'frame-src https://oauth.telegram.org',
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    bot ? `frame-ancestors ${TELEGRAM_WEB_CLIENT}` : "frame-ancestors 'none'",
  ].join('; ');
}
