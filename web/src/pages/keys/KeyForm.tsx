import { useMemo, useState, type FormEvent } from 'react';
import type { components } from '../../api/schema';
import { useApp } from '../../app-context';
import type { MessageKey } from '../../i18n/en';
import type { CatalogModel } from '../../lib/catalog';

type ApiKey = components['schemas']['ApiKey'];
type Period = ApiKey['budget_period'];
const PERIODS: Period[] = ['day', 'month', 'total'];

/** What the create and edit dialogs send: every limit, null where there is none. */
export interface KeyFields {
  name: string;
  token_budget: number | null;
  budget_period: Period;
  models: string[] | null;
  expires_at: string | null;
}

/** The last moment of a YYYY-MM-DD day in UTC: a key "valid until 31 May" works all of that day. */
function endOfDay(date: string): string {
  return `${date}T23:59:59Z`;
}

/** The key's fields as a form: name, token budget per period, model allowlist (from the catalog), expiry date. */
export function KeyForm(props: {
  initial?: ApiKey;
  models: CatalogModel[];
  busy: boolean;
  submitLabel: string;
  onSubmit(fields: KeyFields): void;
  onCancel(): void;
}) {
  const { t } = useApp();
  const { initial } = props;
  const [name, setName] = useState(initial?.name ?? '');
  const [budget, setBudget] = useState(initial?.token_budget != null ? String(initial.token_budget) : '');
  const [period, setPeriod] = useState<Period>(initial?.budget_period ?? 'month');
  const [restrict, setRestrict] = useState(initial?.models != null);
  const [models, setModels] = useState<Set<string>>(new Set(initial?.models ?? []));
  const [search, setSearch] = useState('');
  const [expires, setExpires] = useState(initial?.expires_at ? initial.expires_at.slice(0, 10) : '');
  const [problem, setProblem] = useState<string | null>(null);

  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    return props.models.filter((m) => !q || m.slug.includes(q) || m.name.toLowerCase().includes(q) || m.category.includes(q));
  }, [props.models, search]);

  const toggle = (slug: string, on: boolean) =>
    setModels((prev) => {
      const next = new Set(prev);
      if (on) next.add(slug);
      else next.delete(slug);
      return next;
    });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    const trimmed = budget.trim();
    if (trimmed && !/^\d+$/.test(trimmed)) return setProblem(t('keys.form.budgetInvalid'));
    if (restrict && models.size === 0) return setProblem(t('keys.form.modelsEmpty'));
    props.onSubmit({
      name: name.trim(),
      token_budget: trimmed ? Number(trimmed) : null,
      budget_period: period,
      models: restrict ? [...models] : null,
      expires_at: expires ? endOfDay(expires) : null,
    });
  };

  return (
    <form onSubmit={submit} className="key-form">
      <label htmlFor="kf-name">{t('keys.name')}</label>
      <input id="kf-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />

      <fieldset>
        <legend>{t('keys.form.budget')}</legend>
        <div className="row">
          <div>
            <label htmlFor="kf-budget">{t('keys.form.tokens')}</label>
            <input
              id="kf-budget"
              inputMode="numeric"
              placeholder={t('keys.form.noBudget')}
              aria-describedby="kf-budget-hint"
              value={budget}
              onChange={(e) => setBudget(e.target.value)}
            />
          </div>
          <div>
            <label htmlFor="kf-period">{t('keys.form.period')}</label>
            <select id="kf-period" value={period} disabled={!budget.trim()} onChange={(e) => setPeriod(e.target.value as Period)}>
              {PERIODS.map((p) => (
                <option key={p} value={p}>
                  {t(`keys.period.${p}` as MessageKey)}
                </option>
              ))}
            </select>
          </div>
        </div>
        <p id="kf-budget-hint" className="hint">
          {t('keys.form.budgetHint')}
        </p>
      </fieldset>

      <fieldset>
        <legend>{t('keys.form.models')}</legend>
        <div className="row check">
          <input id="kf-all" type="radio" name="kf-scope" checked={!restrict} onChange={() => setRestrict(false)} />
          <label htmlFor="kf-all">{t('keys.form.allModels')}</label>
        </div>
        <div className="row check">
          <input id="kf-some" type="radio" name="kf-scope" checked={restrict} onChange={() => setRestrict(true)} />
          <label htmlFor="kf-some">{t('keys.form.someModels', { n: models.size })}</label>
        </div>
        {restrict && (
          <>
            <label htmlFor="kf-search" className="visually-hidden">
              {t('keys.form.search')}
            </label>
            <input
              id="kf-search"
              type="search"
              placeholder={t('keys.form.search')}
              value={search}
              onChange={(e) => setSearch(e.target.value)}
            />
            <ul className="model-picks" data-testid="model-picks">
              {shown.map((m) => (
                <li key={m.slug} className="row check">
                  <input
                    id={`kf-m-${m.slug}`}
                    type="checkbox"
                    checked={models.has(m.slug)}
                    onChange={(e) => toggle(m.slug, e.target.checked)}
                  />
                  <label htmlFor={`kf-m-${m.slug}`}>
                    {m.name} <code>{m.slug}</code>
                  </label>
                </li>
              ))}
            </ul>
          </>
        )}
      </fieldset>

      <label htmlFor="kf-expires">{t('keys.form.expires')}</label>
      <input id="kf-expires" type="date" aria-describedby="kf-expires-hint" value={expires} onChange={(e) => setExpires(e.target.value)} />
      <p id="kf-expires-hint" className="hint">
        {t('keys.form.expiresHint')}
      </p>

      {problem && (
        <p className="alert alert-error" role="alert">
          {problem}
        </p>
      )}
      <div className="row end">
        <button type="button" className="secondary" onClick={props.onCancel}>
          {t('keys.cancel')}
        </button>
        <button type="submit" disabled={props.busy || !name.trim()}>
          {props.submitLabel}
        </button>
      </div>
    </form>
  );
}
