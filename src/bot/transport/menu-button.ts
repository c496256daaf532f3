import type { Api } from 'grammy';
import { DEFAULT_LOCALE, type I18n } from '../i18n';

/** Where the bot's menu button opens the dashboard as a Mini App: PUBLIC_URL, when it is https (Telegram requires it). */
export function miniAppUrl(publicUrl: string | undefined): string | undefined {
  return publicUrl?.startsWith('https://') ? `${publicUrl.replace(/\/+$/, '')}/` : undefined;
}

/**
 * The bot's menu button (next to the message field, in every private chat) opens the dashboard inside Telegram
 * (setChatMenuButton with a `web_app`). Without an https PUBLIC_URL the button is left as it is.
 * @returns whether the button was set
 */
export async function setMiniAppMenuButton(api: Api, i18n: I18n, publicUrl: string | undefined): Promise<boolean> {
  const url = miniAppUrl(publicUrl);
  if (!url) return false;
  const t = i18n.translator(DEFAULT_LOCALE);
  await api.setChatMenuButton({ menu_button: { type: 'web_app', text: t('menu-button-app'), web_app: { url } } });
  return true;
}
