import { CHAT_NEW, CHAT_RETRY, MENU, RESULT_FOLLOW_UP, WIZARD } from '../callback-data';

/**
 * What stays in the private chat when asked for in a group, by command: everything that shows or changes the
 * account (balance, plans and payments, history, stats, settings, the chat model and persona, admin). Each maps to
 * the /start parameter of the private-chat link.
 */
export const PRIVATE_COMMANDS: Readonly<Record<string, string>> = {
  start: 'group',
  menu: 'menu',
  balance: 'balance',
  buy: 'buy',
  paysupport: 'paysupport',
  settings: 'settings',
  referral: 'referral',
  invite: 'referral',
  stats: 'stats',
  history: 'history',
  admin: 'admin',
  chat: 'chat',
  mode: 'mode',
  transcribe: 'transcribe',
};

/** The command of a message addressed to the bot (`/balance@bot` → `balance`), lower-cased. */
export function commandOf(text: string | undefined): string | undefined {
  const m = /^\/([A-Za-z0-9_]+)(?:@\w+)?(?:\s|$)/.exec(text ?? '');
  return m?.[1].toLowerCase();
}

/** Menu entries that run something for the asker (the rest are account screens). */
const GROUP_MENU_ENTRIES = new Set(['image', 'video', 'tts', 'music', 'tools', 'help']);

/**
 * The buttons that work in a group (for the member who asked): wizards, the chat's retry and new-conversation
 * buttons, the follow-ups under an image result, and the menu entries that start a wizard. Every other button opens an account screen: private chat.
 */
export function buttonWorksInGroups(data: string): boolean {
  if (WIZARD.filter.test(data) || CHAT_RETRY.filter.test(data) || RESULT_FOLLOW_UP.filter.test(data) || data === CHAT_NEW.data) return true;
  const entry = MENU.parse(data);
  return entry !== undefined && GROUP_MENU_ENTRIES.has(entry);
}
