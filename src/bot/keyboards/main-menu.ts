import { InlineKeyboard } from 'grammy';
import { MENU } from '../callback-data';
import type { Translate } from '../i18n';

export function mainMenuKeyboard(t: Translate): InlineKeyboard {
  return new InlineKeyboard()
    .text(t('menu-chat'), MENU.data('chat'))
    .text(t('menu-image'), MENU.data('image'))
    .row()
    .text(t('menu-video'), MENU.data('video'))
    .text(t('menu-tts'), MENU.data('tts'))
    .row()
    .text(t('menu-stt'), MENU.data('stt'))
    .text(t('menu-music'), MENU.data('music'))
    .row()
    .text(t('menu-tools'), MENU.data('tools'))
    .text(t('menu-balance'), MENU.data('balance'))
    .row()
    .text(t('menu-settings'), MENU.data('settings'))
    .text(t('menu-stats'), MENU.data('stats'))
    .row()
    .text(t('menu-history'), MENU.data('history'))
    .text(t('menu-help'), MENU.data('help'));
}

export function backToMenuKeyboard(t: Translate): InlineKeyboard {
  return new InlineKeyboard().text(t('button-menu'), MENU.data('main'));
}
