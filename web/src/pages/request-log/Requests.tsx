import { useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import { Dialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { EntryDetails } from '../../components/EntryDetails';
import { Link } from '../../components/Link';
import type { MessageKey } from '../../i18n/en';
import { loadCatalog, type CatalogModel } from '../../lib/catalog';
import { describeError } from '../../lib/describe-error';
import { saveFile } from '../../lib/downloads';
import { formatDateTime, formatNumber } from '../../lib/format';
import { EMPTY_FILTERS, fetchAll, logQuery, toCsv, type LogEntry, type LogFilters } from '../../lib/request-log';

type ApiKey = components['schemas']['ApiKey'];

const PAGE = 25;
const EXPORT_MAX = 10_000;
const DOORS = ['web', 'api', 'bot', 'schedule'] as const;
const STATUSES = ['completed', 'failed', 'pending'] as const;

/**
 * Every request of the account, newest first: latency, door, key, model, status, cost in tkn and the model's own
 * tokens; each opens with what was asked and answered; filtered, paged, exported.
 */
export function Requests({ keys }: { keys: ApiKey[] }) {
  const { t, lang } = useApp();
  const [filters, setFilters] = useState<LogFilters>(EMPTY_FILTERS);
  const [models, setModels] = useState<CatalogModel[]>([]);
  const [open, setOpen] = useState<LogEntry | null>(null);
  const [entries, setEntries] = useState<LogEntry[] | null>(null);
  // Cursors of the pages before the shown one (the first page has none), and the next page's.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [next, setNext] = useState<string | null>(null);
  const [exporting, setExporting] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    loadCatalog().then(setModels, () => setModels([]));
  }, []);

  const cursor = cursors.at(-1) ?? null;
  useEffect(() => {
    let live = true;
    api
      .GET('/api/v2/user/history', { params: { query: logQuery(filters, PAGE, cursor) } })
      .then(unwrap)
      .then(
        (page) => {
          if (!live) return;
          setError(null);
          setEntries(page.items);
          setNext(page.next_cursor);
        },
        (err: unknown) => live && setError(describeError(err, t)),
      );
    return () => {
      live = false;
    };
  }, [filters, cursor, t]);

  const keyName = (id: number) => keys.find((k) => k.id === id)?.name ?? t('log.deletedKey', { id: String(id) });
  // Other filters start again at the first page.
  const showFiltered = (chosen: LogFilters) => {
    setFilters(chosen);
    setCursors([null]);
  };
  const set = (patch: Partial<LogFilters>) => showFiltered({ ...filters, ...patch });

  const exportCsv = async () => {
    setError(null);
    setExporting(0);
    try {
      const all = await fetchAll(filters, EXPORT_MAX, setExporting);
      saveFile(`nebula-requests-${new Date().toISOString().slice(0, 10)}.csv`, toCsv(all, keyName), 'text/csv;charset=utf-8');
    } catch (err) {
      setError(describeError(err, t));
    } finally {
      setExporting(null);
    }
  };

  const pageNumber = cursors.length;
  const filtered = JSON.stringify(filters) !== JSON.stringify(EMPTY_FILTERS);
  return (
    <>
      <form className="filters card" onSubmit={(e) => e.preventDefault()} aria-label={t('log.filters')}>
        <div>
          <label htmlFor="log-model">{t('log.model')}</label>
          <select id="log-model" value={filters.model} onChange={(e) => set({ model: e.target.value })}>
            <option value="">{t('history.all')}</option>
            {models.map((m) => (
              <option key={m.slug} value={m.slug}>
                {m.slug}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="log-door">{t('log.door')}</label>
          <select id="log-door" value={filters.door} onChange={(e) => set({ door: e.target.value as LogFilters['door'] })}>
            <option value="">{t('history.all')}</option>
            {DOORS.map((d) => (
              <option key={d} value={d}>
                {t(`door.${d}` as MessageKey)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="log-key">{t('log.key')}</label>
          <select id="log-key" value={filters.key} onChange={(e) => set({ key: e.target.value })}>
            <option value="">{t('history.all')}</option>
            {keys.map((k) => (
              <option key={k.id} value={String(k.id)}>
                {k.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="log-status">{t('log.status')}</label>
          <select id="log-status" value={filters.status} onChange={(e) => set({ status: e.target.value as LogFilters['status'] })}>
            <option value="">{t('history.all')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`history.status.${s}` as MessageKey)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="log-from">{t('range.from')}</label>
          <input
            id="log-from"
            type="date"
            max={filters.to || undefined}
            value={filters.from}
            onChange={(e) => set({ from: e.target.value })}
          />
        </div>
        <div>
          <label htmlFor="log-to">{t('range.to')}</label>
          <input id="log-to" type="date" min={filters.from || undefined} value={filters.to} onChange={(e) => set({ to: e.target.value })} />
        </div>
        <div className="row">
          <button type="button" className="secondary" onClick={() => showFiltered(EMPTY_FILTERS)}>
            {t('log.clear')}
          </button>
          <button type="button" onClick={() => void exportCsv()} disabled={exporting !== null}>
            {exporting !== null ? t('log.exporting', { n: exporting }) : t('log.export')}
          </button>
        </div>
      </form>
      {error && <Alert kind="error">{error}</Alert>}
      {entries === null && !error && <p role="status">{t('app.loading')}</p>}
      {entries && entries.length === 0 && filtered && (
        <EmptyState text={t('history.empty')}>
          <button type="button" className="secondary" onClick={() => showFiltered(EMPTY_FILTERS)}>
            {t('history.clearFilters')}
          </button>
        </EmptyState>
      )}
      {entries && entries.length === 0 && !filtered && pageNumber === 1 && (
        <EmptyState text={t('log.emptyNone')}>
          <Link className="button" href="/playground">
            {t('history.goPlayground')}
          </Link>
        </EmptyState>
      )}
      {entries && entries.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('log.title')}>
          <table className="log">
            <thead>
              <tr>
                <th scope="col">{t('log.time')}</th>
                <th scope="col">{t('log.door')}</th>
                <th scope="col">{t('log.key')}</th>
                <th scope="col">{t('log.model')}</th>
                <th scope="col">{t('log.status')}</th>
                <th scope="col" className="num">
                  {t('log.tokens')}
                </th>
                <th scope="col" className="num">
                  {t('log.modelTokens')}
                </th>
                <th scope="col" className="num">
                  {t('log.latency')}
                </th>
                <th scope="col">
                  <span className="visually-hidden">{t('log.details')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} data-testid="log-row" data-door={e.door}>
                  <td>{formatDateTime(e.created_at, lang)}</td>
                  <td>{t(`door.${e.door}` as MessageKey)}</td>
                  <td>{e.api_key_id === null ? '—' : keyName(e.api_key_id)}</td>
                  <td>
                    <code>{e.model_slug}</code>
                  </td>
                  <td>
                    <span className={`status-${e.status}`} title={e.error ?? undefined}>
                      {t(`history.status.${e.status}` as MessageKey)}
                    </span>
                  </td>
                  <td className="num">{formatNumber(e.tokens_spent, lang)}</td>
                  <td className="num">
                    {e.usage ? `${formatNumber(e.usage.input_tokens, lang)} / ${formatNumber(e.usage.output_tokens, lang)}` : '—'}
                  </td>
                  <td className="num">{e.processing_ms === null ? '—' : t('log.ms', { ms: formatNumber(e.processing_ms, lang) })}</td>
                  <td>
                    <button
                      type="button"
                      className="secondary small"
                      aria-label={t('log.detailsOf', { id: String(e.id) })}
                      onClick={() => setOpen(e)}
                    >
                      {t('log.details')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="row pager" aria-label={t('log.pages')}>
        <button type="button" className="secondary" disabled={pageNumber <= 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
          {t('common.previous')}
        </button>
        <span>{t('log.page', { n: pageNumber })}</span>
        <button type="button" className="secondary" disabled={!next} onClick={() => setCursors((c) => [...c, next])}>
          {t('common.next')}
        </button>
      </nav>
      <Dialog open={open !== null} wide title={open ? t('log.detailsOf', { id: String(open.id) }) : ''} onClose={() => setOpen(null)}>
        {open && <EntryDetails entry={open} keyName={open.api_key_id === null ? null : keyName(open.api_key_id)} />}
        <div className="row end">
          <button type="button" className="secondary" onClick={() => setOpen(null)}>
            {t('common.close')}
          </button>
        </div>
      </Dialog>
    </>
  );
}
