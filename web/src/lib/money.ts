import type { Lang } from './format';

/** An amount in major units in its currency, as the language writes it (590 ₽, RUB 590.00). */
export function money(amount: number, currency: string, lang: Lang): string {
  try {
    return new Intl.NumberFormat(lang === 'ru' ? 'ru-RU' : 'en-GB', { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}
