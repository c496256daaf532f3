import { InlineKeyboard } from 'grammy';
import type { Translate } from '../i18n';

/** Callback data of the main menu entries (`menu:<entry>`). */
export const MENU_ENTRIES = [
  'chat',
  'image',
  'video',
  'tts',
  'stt',
  'music',
  'tools',
  'balance',
  'settings',
  'stats',
  'history',
  'help',
] as const;
export type MenuEntry = (typeof MENU_ENTRIES)[number];

export function mainMenuKeyboard(t: Translate): InlineKeyboard {
  return new InlineKeyboard()
    .text(t('menu-chat'), 'menu:chat')
    .text(t('menu-image'), 'menu:image')
    .row()
    .text(t('menu-video'), 'menu:video')
    .text(t('menu-tts'), 'menu:tts')
    .row()
    .text(t('menu-stt'), 'menu:stt')
    .text(t('menu-music'), 'menu:music')
    .row()
    .text(t('menu-tools'), 'menu:tools')
    .text(t('menu-balance'), 'menu:balance')
    .row()
    .text(t('menu-settings'), 'menu:settings')
    .text(t('menu-stats'), 'menu:stats')
    .row()
    .text(t('menu-history'), 'menu:history')
    .text(t('menu-help'), 'menu:help');
}

export function backToMenuKeyboard(t: Translate): InlineKeyboard {
  return new InlineKeyboard().text(t('button-menu'), 'menu:main');
}
