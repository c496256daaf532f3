import { useEffect, useMemo, useState } from 'react';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { EmptyState } from '../components/EmptyState';
import type { MessageKey } from '../i18n/en';
import { loadCatalog, type CatalogModel } from '../lib/catalog';
import { describeError } from '../lib/describe-error';
import { formatDate, formatNumber, planCovers, planName } from '../lib/format';

const CATEGORIES = ['text', 'image', 'video', 'tts', 'stt', 'music', 'tool'] as const;

/** What a model can do, from its catalog config: chat models all take tools and structured output. */
export function capabilities(m: CatalogModel): MessageKey[] {
  const out: MessageKey[] = [];
  if (m.config.supports_vision === true) out.push('models.cap.vision');
  if (m.category === 'text') out.push('models.cap.tools', 'models.cap.structured');
  if (m.config.supports_reasoning_effort === true) out.push('models.cap.reasoning');
  if (m.supports_streaming) out.push('models.cap.streaming');
  return out;
}

/** Every model of the catalog: price, plan, category, capabilities and lifecycle; filtered by category and words. */
export default function Models() {
  const { t, lang, user } = useApp();
  const [models, setModels] = useState<CatalogModel[] | null>(null);
  const [category, setCategory] = useState('');
  const [search, setSearch] = useState('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    loadCatalog().then(setModels, (err: unknown) => setError(describeError(err, t)));
  }, [t]);

  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    return (models ?? []).filter(
      (m) =>
        (!category || m.category === category) &&
        (!q || [m.slug, m.name, m.provider, m.description_en].some((field) => field.toLowerCase().includes(q))),
    );
  }, [models, category, search]);

  const plan = user?.plan ?? 'free';
  const decimal = (n: number) => n.toLocaleString(lang === 'ru' ? 'ru-RU' : 'en-GB', { maximumFractionDigits: 2 });
  // Text models are priced on the model's tokens (per million, in and out), others per request.
  const price = (m: CatalogModel) => {
    const perMillion = m.price_per_million_tokens;
    if (perMillion)
      return (
        <>
          <strong data-testid="price-per-million">
            {t('models.perMillion', { input: decimal(perMillion.input), output: decimal(perMillion.output) })}
          </strong>
          <span className="hint block">{t('models.perMillionUnit')}</span>
          <span className="hint block">
            {t('models.cachedPerMillion', { cached: decimal(perMillion.cached_input) })} · {t('models.minRequest', { n: m.min_token_cost })}
          </span>
        </>
      );
    return (
      <span data-testid="price-per-request">
        {m.min_token_cost === m.max_token_cost
          ? t('models.price', { tokens: m.token_cost })
          : t('models.priceRange', { min: formatNumber(m.min_token_cost, lang), max: formatNumber(m.max_token_cost, lang) })}
      </span>
    );
  };
  // en-US: "1.05M" (en-GB writes "1.05m", easily read as metres).
  const compact = new Intl.NumberFormat(lang === 'ru' ? 'ru-RU' : 'en-US', { notation: 'compact', maximumSignificantDigits: 3 });
  const context = (m: CatalogModel) =>
    typeof m.config.max_context === 'number' ? t('models.contextValue', { n: compact.format(m.config.max_context) }) : '—';

  return (
    <>
      <h1>{t('models.title')}</h1>
      {error && <Alert kind="error">{error}</Alert>}
      <form className="filters card" role="search" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label htmlFor="models-category">{t('history.category')}</label>
          <select id="models-category" value={category} onChange={(e) => setCategory(e.target.value)}>
            <option value="">{t('history.all')}</option>
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {t(`category.${c}` as MessageKey)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="models-search">{t('models.search')}</label>
          <input id="models-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
        </div>
      </form>
      {models && (
        <p role="status" data-testid="models-count">
          {t('models.count', { n: shown.length })}
        </p>
      )}
      {models && shown.length === 0 && (
        <EmptyState text={t('models.empty')}>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setCategory('');
              setSearch('');
            }}
          >
            {t('history.clearFilters')}
          </button>
        </EmptyState>
      )}
      {shown.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('models.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('models.model')}</th>
                <th scope="col">{t('history.category')}</th>
                <th scope="col">{t('models.priceCol')}</th>
                <th scope="col">{t('models.context')}</th>
                <th scope="col">{t('models.plan')}</th>
                <th scope="col">{t('models.capabilities')}</th>
                <th scope="col">{t('models.lifecycle')}</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((m) => {
                const locked = !planCovers(plan, m.min_plan);
                return (
                  <tr key={m.slug} data-testid="model-row" data-slug={m.slug} data-locked={locked}>
                    <th scope="row">
                      <span className="model-name">{m.name}</span>
                      <br />
                      <code>{m.slug}</code> <span className="hint">{m.provider}</span>
                    </th>
                    <td>{t(`category.${m.category}` as MessageKey)}</td>
                    <td className="price">{price(m)}</td>
                    <td data-testid="context">{context(m)}</td>
                    <td>
                      {locked ? (
                        <span className="badge badge-warn" data-testid="locked">
                          {t('models.needs', { plan: planName(m.min_plan) })}
                        </span>
                      ) : (
                        planName(m.min_plan)
                      )}
                    </td>
                    <td>
                      <ul className="caps">
                        {capabilities(m).map((c) => (
                          <li key={c} className="badge">
                            {t(c)}
                          </li>
                        ))}
                      </ul>
                    </td>
                    <td>
                      {m.shutdown_at ? (
                        <span className="badge badge-danger">{t('models.shutdown', { date: formatDate(m.shutdown_at, lang) })}</span>
                      ) : m.deprecated_at ? (
                        <span className="badge badge-warn">{t('models.deprecated')}</span>
                      ) : (
                        t('models.active')
                      )}
                      {m.replacement && <div className="hint">{t('models.replacement', { model: m.replacement })}</div>}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
