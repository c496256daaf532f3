import fs from 'node:fs';
import path from 'node:path';
import { FluentBundle, FluentResource, type FluentVariable } from '@fluent/bundle';

export const BOT_LOCALES = ['en', 'ru'] as const;
export type Locale = (typeof BOT_LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

export type TranslationArgs = Record<string, FluentVariable>;
/** A translator bound to one locale. */
export type Translate = (key: string, args?: TranslationArgs) => string;

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (BOT_LOCALES as readonly string[]).includes(value);
}

/** Telegram's `language_code` (`ru`, `ru-RU`, `en-GB`…) to one of ours; everything else is English. */
export function localeFromTelegram(code: string | undefined): Locale {
  const base = code?.toLowerCase().split(/[-_]/)[0];
  return isLocale(base) ? base : DEFAULT_LOCALE;
}

/** The default location of the `.ftl` files: `<repo>/locales` (from src/bot and from dist/src/bot alike). */
export function defaultLocalesDir(): string {
  const candidates = [path.resolve(__dirname, '../../locales'), path.resolve(__dirname, '../../../locales'), path.resolve('locales')];
  return candidates.find((dir) => fs.existsSync(path.join(dir, `${DEFAULT_LOCALE}.ftl`))) ?? candidates[0];
}

/**
 * A small Fluent wrapper: one bundle per locale, loaded from `<dir>/<locale>.ftl`. A key missing in a locale
 * falls back to English, then to the key itself (and is reported once), so a user never sees an exception.
 */
export class I18n {
  private readonly bundles = new Map<Locale, FluentBundle>();
  private readonly reported = new Set<string>();

  constructor(
    sources: Record<Locale, string>,
    private readonly onMissing: (locale: Locale, key: string) => void = () => undefined,
  ) {
    for (const locale of BOT_LOCALES) {
      // No bidi isolation marks: Telegram shows them as stray characters in some clients.
      const bundle = new FluentBundle(locale, { useIsolating: false });
      const errors = bundle.addResource(new FluentResource(sources[locale]));
      if (errors.length > 0) throw new Error(`${locale}.ftl: ${errors.map((e) => e.message).join('; ')}`);
      this.bundles.set(locale, bundle);
    }
  }

  static load(dir: string = defaultLocalesDir(), onMissing?: (locale: Locale, key: string) => void): I18n {
    const sources = Object.fromEntries(BOT_LOCALES.map((l) => [l, fs.readFileSync(path.join(dir, `${l}.ftl`), 'utf8')])) as Record<
      Locale,
      string
    >;
    return new I18n(sources, onMissing);
  }

  has(locale: Locale, key: string): boolean {
    return this.bundles.get(locale)!.hasMessage(key);
  }

  /** Message ids of one locale. */
  keys(locale: Locale): string[] {
    return [...this.bundles.get(locale)!._messages.keys()];
  }

  t(locale: Locale, key: string, args?: TranslationArgs): string {
    for (const candidate of [locale, DEFAULT_LOCALE]) {
      const bundle = this.bundles.get(candidate)!;
      const message = bundle.getMessage(key);
      if (message?.value) {
        if (candidate !== locale) this.report(locale, key);
        return bundle.formatPattern(message.value, args);
      }
    }
    this.report(locale, key);
    return key;
  }

  translator(locale: Locale): Translate {
    return (key, args) => this.t(locale, key, args);
  }

  private report(locale: Locale, key: string): void {
    const id = `${locale}:${key}`;
    if (this.reported.has(id)) return;
    this.reported.add(id);
    this.onMissing(locale, key);
  }
}
