export type Lang = 'en' | 'ru';

const LOCALE: Record<Lang, string> = { en: 'en-GB', ru: 'ru-RU' };

export function formatDate(iso: string | null | undefined, lang: Lang): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return d.toLocaleDateString(LOCALE[lang], { year: 'numeric', month: 'short', day: 'numeric' });
}

export function formatDateTime(iso: string | null | undefined, lang: Lang): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return d.toLocaleString(LOCALE[lang], { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function formatNumber(n: number, lang: Lang): string {
  return n.toLocaleString(LOCALE[lang]);
}

const PLAN_NAMES: Record<string, string> = { free: 'Starter', basic: 'Basic', pro: 'Pro', vip: 'VIP', elite: 'Elite' };
const PLAN_LEVEL: Record<string, number> = { free: 0, basic: 1, pro: 2, vip: 3, elite: 4 };

export function planName(slug: string | null | undefined): string {
  return slug ? (PLAN_NAMES[slug] ?? slug) : 'Starter';
}

/** API keys work from VIP (plan level 3) on. */
export function planAllowsApiKeys(slug: string): boolean {
  return (PLAN_LEVEL[slug] ?? 0) >= 3;
}

/** Whether `plan` may use a model whose lowest plan is `minPlan`. */
export function planCovers(plan: string, minPlan: string | null | undefined): boolean {
  return (PLAN_LEVEL[plan] ?? 0) >= (PLAN_LEVEL[minPlan ?? 'free'] ?? 0);
}
