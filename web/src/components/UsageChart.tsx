import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { stackBars } from '../lib/chart';
import { formatNumber } from '../lib/format';

type DailyUsage = components['schemas']['DailyUsage'];

const ORDER = ['text', 'image', 'video', 'tts', 'stt', 'music', 'tool'] as const;
const WIDTH = 600;
const HEIGHT = 160;

/** Tokens per day stacked by category (SVG, colours from the stylesheet), with the same figures as a table. */
export function UsageChart({ usage }: { usage: DailyUsage }) {
  const { t, lang } = useApp();
  const days = usage.series.map((d) => ({ label: d.date, values: Object.fromEntries(ORDER.map((c) => [c, d.categories[c].tokens])) }));
  const { bars, max } = stackBars(days, ORDER, WIDTH, HEIGHT);
  const tokens = usage.series.reduce((s, d) => s + d.tokens, 0);
  const count = usage.series.reduce((s, d) => s + d.count, 0);
  const used = ORDER.filter((c) => usage.series.some((d) => d.categories[c].tokens > 0));
  if (count === 0) return <p>{t('overview.usageEmpty')}</p>;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT + 18}`} role="img" aria-label={t('overview.usageTotal', { tokens, count })}>
        <line x1="0" x2={WIDTH} y1={HEIGHT} y2={HEIGHT} className="axis" />
        <text x="2" y="10" className="axis-label">{formatNumber(max, lang)}</text>
        {bars.map((bar) => (
          <g key={bar.label}>
            <title>{`${bar.label}: ${bar.total}`}</title>
            {bar.segments.map((s) => (
              <rect key={s.category} x={bar.x} y={s.y} width={bar.width} height={s.height} className={`cat-${s.category}`} />
            ))}
          </g>
        ))}
        <text x="0" y={HEIGHT + 14} className="axis-label">{usage.series[0]?.date}</text>
        <text x={WIDTH} y={HEIGHT + 14} textAnchor="end" className="axis-label">{usage.series.at(-1)?.date}</text>
      </svg>
      <figcaption>
        {t('overview.usageTotal', { tokens: formatNumber(tokens, lang), count: formatNumber(count, lang) })}
        <ul className="legend">
          {used.map((c) => (
            <li key={c}><span className={`swatch cat-${c}`} aria-hidden="true" />{t(`category.${c}`)}</li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
