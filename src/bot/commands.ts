import type { Api } from 'grammy';
import { BOT_LOCALES, DEFAULT_LOCALE, type I18n, type Translate } from './i18n';

/** The commands and their descriptions in one language. */
function commandList(t: Translate): { command: string; description: string }[] {
  return [
    { command: 'start', description: t('command-start') },
    { command: 'menu', description: t('command-menu') },
    { command: 'chat', description: t('command-chat') },
    { command: 'new', description: t('command-new') },
    { command: 'mode', description: t('command-mode') },
    { command: 'image', description: t('command-image') },
    { command: 'video', description: t('command-video') },
    { command: 'speech', description: t('command-speech') },
    { command: 'transcribe', description: t('command-transcribe') },
    { command: 'music', description: t('command-music') },
    { command: 'tools', description: t('command-tools') },
    { command: 'balance', description: t('command-balance') },
    { command: 'buy', description: t('command-buy') },
    { command: 'paysupport', description: t('command-paysupport') },
    { command: 'settings', description: t('command-settings') },
    { command: 'stats', description: t('command-stats') },
    { command: 'history', description: t('command-history') },
    { command: 'help', description: t('command-help') },
    { command: 'cancel', description: t('command-cancel') },
  ];
}

/** The command list Telegram shows in the menu, per language (English also as the default). */
export async function registerCommands(api: Api, i18n: I18n): Promise<void> {
  for (const locale of BOT_LOCALES) {
    const commands = commandList(i18n.translator(locale));
    await api.setMyCommands(commands, { language_code: locale });
    if (locale === DEFAULT_LOCALE) await api.setMyCommands(commands);
  }
}
