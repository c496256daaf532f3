import type { ReactNode } from 'react';
import type { components } from '../../api/schema';
import { useApp } from '../../app-context';
import type { MessageKey } from '../../i18n/en';
import { formatNumber, planName } from '../../lib/format';
import { money } from '../../lib/money';

type Plan = components['schemas']['Plan'];
type Article = components['schemas']['Article'];

/**
 * The plans side by side, the account's own marked: price, tkn per period and once, request limits, models,
 * API keys and how long files are kept; each paid plan can be bought from its column.
 */
export function PlanComparison(props: {
  plans: Plan[];
  articles: Article[];
  current: string;
  busy: string | null;
  /** Inside Telegram: prices and buttons in Stars. */
  inStars?: boolean;
  onBuy(article: Article): void;
}) {
  const { t, lang } = useApp();
  const articleOf = (p: Plan) => props.articles.find((a) => a.kind === 'plan' && a.plan === p.slug);
  const limit = (n: number) => (n === 0 ? t('billing.unlimited') : formatNumber(n, lang));
  const rows: { label: MessageKey; cell(p: Plan): ReactNode }[] = [
    {
      label: 'billing.row.price',
      cell: (p) => {
        const article = articleOf(p);
        if (article && props.inStars) return `${formatNumber(article.stars, lang)} ⭐`;
        return article ? money(article.price.amount, article.price.currency, lang) : p.level === 0 ? t('billing.free') : '—';
      },
    },
    { label: 'billing.row.monthly', cell: (p) => formatNumber(p.monthly_tokens, lang) },
    { label: 'billing.row.oneTime', cell: (p) => (p.one_time_tokens > 0 ? formatNumber(p.one_time_tokens, lang) : '—') },
    { label: 'billing.row.hourly', cell: (p) => limit(p.rate_limit_hourly) },
    { label: 'billing.row.daily', cell: (p) => limit(p.rate_limit_daily) },
    { label: 'billing.row.models', cell: (p) => formatNumber(p.models, lang) },
    { label: 'billing.row.keys', cell: (p) => (p.api_keys ? t('billing.yes') : t('billing.no')) },
    {
      label: 'billing.row.retention',
      cell: (p) => (p.retention_days === null ? t('billing.forever') : t('billing.days', { n: p.retention_days })),
    },
  ];
  return (
    <section className="card" aria-labelledby="plans-h">
      <h2 id="plans-h">{t('billing.plans')}</h2>
      <div className="table-wrap" tabIndex={0} role="region" aria-labelledby="plans-h">
        <table className="plans">
          <thead>
            <tr>
              <th scope="col">{t('billing.feature')}</th>
              {props.plans.map((p) => (
                <th
                  key={p.slug}
                  scope="col"
                  data-testid="plan-column"
                  data-plan={p.slug}
                  className={p.slug === props.current ? 'current' : undefined}
                >
                  {planName(p.slug)}
                  {p.slug === props.current && (
                    <span className="badge badge-ok block" data-testid="current-plan">
                      {t('billing.current')}
                    </span>
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.label}>
                <th scope="row">{t(row.label)}</th>
                {props.plans.map((p) => (
                  <td key={p.slug} className={p.slug === props.current ? 'current' : undefined}>
                    {row.cell(p)}
                  </td>
                ))}
              </tr>
            ))}
            <tr>
              <th scope="row">
                <span className="visually-hidden">{t('billing.buy')}</span>
              </th>
              {props.plans.map((p) => {
                const article = articleOf(p);
                return (
                  <td key={p.slug} className={p.slug === props.current ? 'current' : undefined}>
                    {article && (
                      <button
                        type="button"
                        disabled={props.busy !== null}
                        aria-label={
                          props.inStars
                            ? t('billing.payStarsOf', { n: article.stars, title: article.title })
                            : `${t('billing.buy')}: ${article.title}`
                        }
                        onClick={() => props.onBuy(article)}
                      >
                        {props.busy === article.id
                          ? t(props.inStars ? 'billing.starsOpening' : 'billing.redirecting')
                          : props.inStars
                            ? t('billing.payStars', { n: article.stars })
                            : t('billing.buy')}
                      </button>
                    )}
                  </td>
                );
              })}
            </tr>
          </tbody>
        </table>
      </div>
      <p className="hint" data-testid="renewal-terms">
        {t('billing.renewal')}
      </p>
    </section>
  );
}
