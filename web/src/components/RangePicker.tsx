import { useApp } from '../app-context';
import { lastDays, spanDays, type DayRange } from '../lib/date-range';

export const PRESETS = [7, 30, 90] as const;

/** From and to dates with 7/30/90-day presets; the preset matching the range is shown pressed. */
export function RangePicker({ range, onChange, idPrefix }: { range: DayRange; onChange(range: DayRange): void; idPrefix: string }) {
  const { t } = useApp();
  const today = lastDays(1).to;
  const current = range.to === today ? spanDays(range) : 0;
  return (
    <div className="range filters" role="group" aria-label={t('range.label')}>
      <div className="presets">
        {PRESETS.map((days) => (
          <button key={days} type="button" className="secondary" aria-pressed={current === days} onClick={() => onChange(lastDays(days))}>
            {t('range.last', { days })}
          </button>
        ))}
      </div>
      <div>
        <label htmlFor={`${idPrefix}-from`}>{t('range.from')}</label>
        <input
          id={`${idPrefix}-from`}
          type="date"
          max={range.to}
          value={range.from}
          onChange={(e) => e.target.value && onChange({ ...range, from: e.target.value })}
        />
      </div>
      <div>
        <label htmlFor={`${idPrefix}-to`}>{t('range.to')}</label>
        <input
          id={`${idPrefix}-to`}
          type="date"
          min={range.from}
          max={today}
          value={range.to}
          onChange={(e) => e.target.value && onChange({ ...range, to: e.target.value })}
        />
      </div>
    </div>
  );
}
