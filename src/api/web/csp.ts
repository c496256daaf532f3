import type { AppConfig } from '../../config';

/**
 * The Content-Security-Policy of the dashboard's HTML: scripts and styles from this origin only (the build emits
 * no inline code), plus the Telegram Login Widget script's origin and Telegram's sign-in frames.
 */
export function dashboardCsp(config: AppConfig): string {
  const widgetOrigin = config.bot.token ? config.telegramWidgetOrigin : '';
  return [
    "default-src 'self'",
    `script-src 'self'${widgetOrigin ? ` ${widgetOrigin}` : ''}`,
    "style-src 'self'",
    "img-src 'self' data: blob: https:",
    "media-src 'self' blob: https:",
    "connect-src 'self'",
    'frame-src https://oauth.telegram.org',
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
