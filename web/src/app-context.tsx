import { createContext, useContext } from 'react';
import type { components } from './api/schema';
import type { MessageKey } from './i18n/en';
import type { Translate, Vars } from './i18n/translate';
import type { Lang } from './lib/format';
import type { TelegramWebApp } from './lib/telegram-webapp';

export type User = components['schemas']['User'];
export type PublicConfig = components['schemas']['PublicConfig'];

export interface AppState {
  lang: Lang;
  t: Translate;
  /** The signed-in account, or null on the public pages. */
  user: User | null;
  config: PublicConfig | null;
  /** Telegram's Mini App object when the dashboard runs inside Telegram, else null. */
  telegram: TelegramWebApp | null;
  /** Why signing in with Telegram's initData failed (a 401: forged or stale), or null. */
  telegramSignInError: unknown;
  setLang(lang: Lang): void;
  reloadUser(): Promise<void>;
  /** Called with a sign-in answer: keeps the access token in memory and loads the account. */
  signedIn(accessToken: string): Promise<void>;
  signOut(): Promise<void>;
}

export const AppContext = createContext<AppState | null>(null);

export function useApp(): AppState {
  const state = useContext(AppContext);
  if (!state) throw new Error('AppContext missing');
  return state;
}

export function useT(): (key: MessageKey, vars?: Vars) => string {
  return useApp().t;
}
