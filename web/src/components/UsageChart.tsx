import { useState } from 'react';
import type { components } from '../api/schema';
import { useApp } from '../app-context';
import type { MessageKey } from '../i18n/en';
import { stackBars } from '../lib/chart';
import { formatDate, formatNumber } from '../lib/format';

type DailyUsage = components['schemas']['DailyUsage'];

const ORDER = ['text', 'image', 'video', 'tts', 'stt', 'music', 'tool'] as const;
const WIDTH = 600;
const HEIGHT = 160;
const TIP_WIDTH = 150;

/**
 * Tokens per day stacked by category (SVG, colours from the stylesheet). Each bar is focusable and shows its day's
 * figures on hover or focus; the same figures are also a table for those who would rather read than look.
 */
export function UsageChart({ usage }: { usage: DailyUsage }) {
  const { t, lang } = useApp();
  const [active, setActive] = useState<number | null>(null);
  const days = usage.series.map((d) => ({ label: d.date, values: Object.fromEntries(ORDER.map((c) => [c, d.categories[c].tokens])) }));
  const { bars, max } = stackBars(days, ORDER, WIDTH, HEIGHT);
  const used = ORDER.filter((c) => usage.series.some((d) => d.categories[c].tokens > 0));
  if (usage.total.count === 0) return <p>{t('overview.usageEmpty')}</p>;
  const day = (date: string) => formatDate(`${date}T12:00:00Z`, lang);
  const describe = (i: number) => {
    const d = usage.series[i]!;
    return t('overview.barLabel', { date: day(d.date), tokens: d.tokens, count: d.count });
  };
  const tip = active !== null ? bars[active] : undefined;
  const tipX = tip ? Math.min(Math.max(tip.x + tip.width / 2 - TIP_WIDTH / 2, 0), WIDTH - TIP_WIDTH) : 0;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT + 18}`} role="group" aria-label={t('overview.chartLabel')} onMouseLeave={() => setActive(null)}>
        <line x1="0" x2={WIDTH} y1={HEIGHT} y2={HEIGHT} className="axis" />
        <line x1="0" x2={WIDTH} y1={0} y2={0} className="grid" />
        <text x="2" y="10" className="axis-label">
          {formatNumber(max, lang)}
        </text>
        {bars.map((bar, i) => (
          <g
            key={bar.label}
            className={active === i ? 'bar active' : 'bar'}
            tabIndex={0}
            role="img"
            aria-label={describe(i)}
            data-testid="usage-bar"
            onMouseEnter={() => setActive(i)}
            onFocus={() => setActive(i)}
            onBlur={() => setActive(null)}
          >
            {/* The whole column answers the pointer, not only its coloured part. */}
            <rect x={bar.x} y={0} width={bar.width} height={HEIGHT} className="hit" />
            {bar.segments.map((s) => (
              <rect key={s.category} x={bar.x} y={s.y} width={bar.width} height={s.height} className={`cat-${s.category}`} />
            ))}
          </g>
        ))}
        {tip && active !== null && (
          <g className="tooltip" aria-hidden="true" data-testid="usage-tooltip">
            <rect x={tipX} y={4} width={TIP_WIDTH} height={40} rx={4} />
            <text x={tipX + 8} y={20}>
              {day(usage.series[active]!.date)}
            </text>
            <text x={tipX + 8} y={36}>
              {t('overview.tipTokens', { tokens: tip.total, count: usage.series[active]!.count })}
            </text>
          </g>
        )}
        <text x="0" y={HEIGHT + 14} className="axis-label">
          {day(usage.from)}
        </text>
        <text x={WIDTH} y={HEIGHT + 14} textAnchor="end" className="axis-label">
          {day(usage.to)}
        </text>
      </svg>
      <figcaption>
        {t('overview.usageTotal', { tokens: usage.total.tokens, count: usage.total.count })}
        <ul className="legend">
          {used.map((c) => (
            <li key={c}>
              <span className={`swatch cat-${c}`} aria-hidden="true" />
              {t(`category.${c}` as MessageKey)}
            </li>
          ))}
        </ul>
      </figcaption>
      <details className="chart-table">
        <summary>{t('overview.asTable')}</summary>
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('overview.asTable')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('overview.day')}</th>
                <th scope="col">{t('overview.tokensCol')}</th>
                <th scope="col">{t('overview.generationsCol')}</th>
                {used.map((c) => (
                  <th key={c} scope="col">
                    {t(`category.${c}` as MessageKey)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {usage.series.map((d) => (
                <tr key={d.date}>
                  <th scope="row">{day(d.date)}</th>
                  <td>{formatNumber(d.tokens, lang)}</td>
                  <td>{formatNumber(d.count, lang)}</td>
                  {used.map((c) => (
                    <td key={c}>{formatNumber(d.categories[c].tokens, lang)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
