import { en, type MessageKey } from './en';
import { ru } from './ru';
import type { Lang } from '../lib/format';

const CATALOGUES: Record<Lang, Record<MessageKey, string>> = { en, ru };

export type Vars = Record<string, string | number>;
export type Translate = (key: MessageKey, vars?: Vars) => string;

/** The text of `key` in `lang`, placeholders `{name}` filled from `vars` (unknown ones are left as typed). */
export function translate(lang: Lang, key: MessageKey, vars: Vars = {}): string {
  const text = CATALOGUES[lang][key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

export function isLang(value: unknown): value is Lang {
  return value === 'en' || value === 'ru';
}
