import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { formatNumber } from '../lib/format';

type DailyUsage = components['schemas']['DailyUsage'];
type Group = NonNullable<DailyUsage['groups']>[number];

/**
 * The range's tokens per model or per key, largest first, with each one's share. The usage API gives tokens, not
 * money, so tokens are what is shown: no price is made up here.
 */
export function UsageBreakdown({
  id,
  title,
  usage,
  nameOf,
}: {
  id: string;
  title: string;
  usage: DailyUsage;
  nameOf(group: Group): string;
}) {
  const { t, lang } = useApp();
  const groups = usage.groups ?? [];
  const total = Math.max(usage.total.tokens, 1);
  return (
    <section className="card" aria-labelledby={`${id}-h`} data-testid={id}>
      <h2 id={`${id}-h`}>{title}</h2>
      {groups.length === 0 ? (
        <p>{t('overview.usageEmpty')}</p>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-labelledby={`${id}-h`}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('overview.name')}</th>
                <th scope="col">{t('overview.tokensCol')}</th>
                <th scope="col">{t('overview.generationsCol')}</th>
                <th scope="col">{t('overview.share')}</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={String(g.id)} data-testid={`${id}-row`}>
                  <th scope="row">{nameOf(g)}</th>
                  <td>{formatNumber(g.tokens, lang)}</td>
                  <td>{formatNumber(g.count, lang)}</td>
                  <td>
                    <meter min={0} max={total} value={g.tokens} aria-label={`${nameOf(g)}: ${Math.round((g.tokens / total) * 100)}%`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
