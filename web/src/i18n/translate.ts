import { en, type MessageKey } from './en';
import { countOf, type Unit } from './plurals';
import type { Lang } from '../lib/format';

// English ships with the app (it is also every message's fallback); other languages are registered when loaded
// (./languages.ts), so the sign-in page of an English visitor does not carry them.
const CATALOGUES: Partial<Record<Lang, Record<MessageKey, string>>> = { en };

export function registerCatalogue(lang: Lang, catalogue: Record<MessageKey, string>): void {
  CATALOGUES[lang] = catalogue;
}

export function hasCatalogue(lang: Lang): boolean {
  return CATALOGUES[lang] !== undefined;
}
const UNITS = new Set<string>([
  'tkn',
  'modelToken',
  'generation',
  'request',
  'minute',
  'day',
  'session',
  'model',
  'key',
  'message',
] satisfies Unit[]);

export type Vars = Record<string, string | number>;
export type Translate = (key: MessageKey, vars?: Vars) => string;

/**
 * The text of `key` in `lang`, placeholders filled from `vars`: `{name}` as given, `{n:tkn}` as a count with its
 * unit ("1 tkn", "1,234 tkn"), `{n:modelToken}` with its plural word ("5 model tokens", "5 токенов модели").
 * Unknown placeholders are left as typed.
 */
export function translate(lang: Lang, key: MessageKey, vars: Vars = {}): string {
  const text = CATALOGUES[lang]?.[key] ?? en[key];
  return text.replace(/\{(\w+)(?::(\w+))?\}/g, (whole, name: string, unit: string | undefined) => {
    if (!(name in vars)) return whole;
    const value = vars[name]!;
    return unit && UNITS.has(unit) && typeof value === 'number' ? countOf(lang, unit as Unit, value) : String(value);
  });
}

export function isLang(value: unknown): value is Lang {
  return value === 'en' || value === 'ru';
}
