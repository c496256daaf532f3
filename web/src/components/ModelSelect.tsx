import { useApp } from '../app-context';
import { planName } from '../lib/format';
import type { ModelChoice } from '../lib/models';

/** A model picker: locked models stay visible, disabled, with the plan they need. */
export function ModelSelect({
  id,
  choices,
  value,
  onChange,
}: {
  id: string;
  choices: ModelChoice[];
  value: string;
  onChange(slug: string): void;
}) {
  const { t } = useApp();
  return (
    <>
      <label htmlFor={id}>{t('playground.model')}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {choices.map((c) => (
          <option key={c.slug} value={c.slug} disabled={c.lockedUntil !== null}>
            {c.lockedUntil ? `${c.name} — ${t('playground.needsPlan', { plan: planName(c.lockedUntil) })}` : c.name}
          </option>
        ))}
      </select>
    </>
  );
}
