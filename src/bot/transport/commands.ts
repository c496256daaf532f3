import type { Api } from 'grammy';
import { BOT_LOCALES, DEFAULT_LOCALE, type I18n, type Translate } from '../i18n';

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
    { command: 'speak', description: t('command-speak') },
    { command: 'transcribe', description: t('command-transcribe') },
    { command: 'music', description: t('command-music') },
    { command: 'tools', description: t('command-tools') },
    { command: 'balance', description: t('command-balance') },
    { command: 'buy', description: t('command-buy') },
    { command: 'referral', description: t('command-referral') },
    { command: 'redeem', description: t('command-redeem') },
    { command: 'paysupport', description: t('command-paysupport') },
    { command: 'settings', description: t('command-settings') },
    { command: 'stats', description: t('command-stats') },
    { command: 'history', description: t('command-history') },
    { command: 'help', description: t('command-help') },
    { command: 'cancel', description: t('command-cancel') },
    { command: 'stop', description: t('command-stop') },
  ];
}

/** What works in a group (the account's screens stay in the private chat); admins also see /off and /on. */
function groupCommandList(t: Translate, admin: boolean): { command: string; description: string }[] {
  const names = ['new', 'image', 'video', 'speech', 'speak', 'music', 'tools', 'stop', 'help'];
  const list = commandList(t).filter((c) => names.includes(c.command));
  return admin ? [...list, { command: 'off', description: t('command-off') }, { command: 'on', description: t('command-on') }] : list;
}

/** The command lists Telegram shows, per language (English also as the default): private chats, groups, group admins. */
export async function registerCommands(api: Api, i18n: I18n): Promise<void> {
  for (const locale of BOT_LOCALES) {
    const t = i18n.translator(locale);
    const lists = [
      { commands: commandList(t), scope: undefined },
      { commands: groupCommandList(t, false), scope: { type: 'all_group_chats' as const } },
      { commands: groupCommandList(t, true), scope: { type: 'all_chat_administrators' as const } },
    ];
    for (const { commands, scope } of lists) {
      await api.setMyCommands(commands, { language_code: locale, ...(scope ? { scope } : {}) });
      if (locale === DEFAULT_LOCALE) await api.setMyCommands(commands, scope ? { scope } : {});
    }
  }
}
