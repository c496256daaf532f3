import type { PlanDirectory } from '../../core/accounts/plans';
import { baseTokenCost, priceRange } from '../../core/catalog/pricing';
import type { ModelDefinition } from '../../core/catalog/types';
import type { Locale } from '../i18n';

const INTL_LOCALE: Record<Locale, string> = { en: 'en-GB', ru: 'ru-RU' };

/** `22 Nov 2026` / `22 нояб. 2026 г.` (UTC, as every date the service stores). */
export function formatDate(locale: Locale, date: Date): string {
  return new Intl.DateTimeFormat(INTL_LOCALE[locale], { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(date);
}

/** `22 Nov 2026, 14:05 UTC`. */
export function formatDateTime(locale: Locale, date: Date): string {
  const text = new Intl.DateTimeFormat(INTL_LOCALE[locale], {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
  }).format(date);
  return `${text} UTC`;
}

/** `14:05 UTC`. */
export function formatTime(locale: Locale, date: Date): string {
  return `${new Intl.DateTimeFormat(INTL_LOCALE[locale], { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }).format(date)} UTC`;
}

/** A model's price for labels: `3`, `3–6`, or `≈1` for a text model's ordinary message. */
export function priceLabel(model: ModelDefinition): string {
  if (model.category === 'text') return `≈${baseTokenCost(model)}`;
  const { min, max } = priceRange(model);
  return min === max ? String(min) : `${min}–${max}`;
}

/** Display names of every plan, by slug. */
export async function planNames(plans: PlanDirectory): Promise<Record<string, string>> {
  return Object.fromEntries([...(await plans.all()).values()].map((p) => [p.slug, p.name]));
}

/** The display name of a plan slug (`basic` → `Basic`, `free` → `Starter`). */
export async function planName(plans: PlanDirectory, slug: string): Promise<string> {
  try {
    return (await plans.get(slug)).name;
  } catch {
    return slug;
  }
}

/** Cuts text to `max` characters (code points), ending with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}
