import { useCallback, useEffect, useState } from 'react';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { Dialog } from '../components/Dialog';
import { EmptyState } from '../components/EmptyState';
import { EntryDetails, type HistoryEntry } from '../components/EntryDetails';
import { GenerationResult } from '../components/GenerationResult';
import { Link } from '../components/Link';
import type { MessageKey } from '../i18n/en';
import { describeError } from '../lib/describe-error';
import { formatDateTime } from '../lib/format';

type HistoryQuery = NonNullable<paths['/api/v2/user/history']['get']['parameters']['query']>;

const CATEGORIES = ['text', 'image', 'video', 'tts', 'stt', 'music', 'tool'] as const;
const STATUSES = ['pending', 'completed', 'failed'] as const;
const PAGE = 12;
const REFRESH_MS = 5000;

/** The account's results, newest first: each opens with what was asked, the files to download, and Delete. */
export default function History() {
  const { t, lang } = useApp();
  const [category, setCategory] = useState<HistoryQuery['category'] | ''>('');
  const [model, setModel] = useState('');
  const [status, setStatus] = useState<HistoryQuery['status'] | ''>('');
  const [items, setItems] = useState<HistoryEntry[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [open, setOpen] = useState<HistoryEntry | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const filtered = Boolean(category || model.trim() || status);

  const load = useCallback(
    async (after: string | null) => {
      setError(null);
      try {
        const query: HistoryQuery = {
          limit: PAGE,
          deleted: 'exclude',
          ...(category ? { category } : {}),
          ...(model.trim() ? { model: model.trim() } : {}),
          ...(status ? { status } : {}),
          ...(after ? { cursor: after } : {}),
        };
        const page = unwrap(await api.GET('/api/v2/user/history', { params: { query } }));
        setItems((prev) => (after ? [...(prev ?? []), ...page.items] : page.items));
        setCursor(page.next_cursor);
      } catch (err) {
        setError(describeError(err, t));
      }
    },
    [category, model, status, t],
  );

  useEffect(() => {
    const timer = setTimeout(() => void load(null), 250);
    return () => clearTimeout(timer);
  }, [load]);

  // Pending generations are re-read until they finish (a string, so the timer restarts only when the set changes).
  const pendingIds = (items ?? [])
    .filter((g) => g.status === 'pending')
    .map((g) => g.id)
    .join(',');
  useEffect(() => {
    if (!pendingIds) return;
    const timer = setInterval(() => {
      for (const id of pendingIds.split(',')) {
        void api.GET('/api/v2/generate/{id}', { params: { path: { id } } }).then((r) => {
          if (!r.response.ok || !r.data) return;
          const fresh = r.data;
          setItems((all) => all?.map((x) => (x.id === fresh.id ? { ...x, ...fresh } : x)) ?? null);
        });
      }
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [pendingIds]);

  const remove = async (entry: HistoryEntry) => {
    setError(null);
    try {
      unwrap(await api.DELETE('/api/v2/generate/{id}', { params: { path: { id: String(entry.id) } } }));
      setItems((all) => all?.filter((x) => x.id !== entry.id) ?? null);
      setOpen(null);
      setNotice(t('history.deleted'));
    } catch (err) {
      setError(describeError(err, t));
    }
  };

  const clearFilters = () => {
    setCategory('');
    setModel('');
    setStatus('');
  };

  return (
    <>
      <h1>{t('history.title')}</h1>
      <form className="filters card" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label htmlFor="h-category">{t('history.category')}</label>
          <select id="h-category" value={category} onChange={(e) => setCategory(e.target.value as typeof category)}>
            <option value="">{t('history.all')}</option>
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {t(`category.${c}` as MessageKey)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="h-model">{t('history.model')}</label>
          <input id="h-model" value={model} onChange={(e) => setModel(e.target.value)} />
        </div>
        <div>
          <label htmlFor="h-status">{t('history.status')}</label>
          <select id="h-status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
            <option value="">{t('history.all')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`history.status.${s}` as MessageKey)}
              </option>
            ))}
          </select>
        </div>
      </form>
      {error && <Alert kind="error">{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {items === null && !error && <p role="status">{t('app.loading')}</p>}
      {items && items.length === 0 && filtered && (
        <EmptyState text={t('history.empty')}>
          <button type="button" className="secondary" onClick={clearFilters}>
            {t('history.clearFilters')}
          </button>
        </EmptyState>
      )}
      {items && items.length === 0 && !filtered && (
        <EmptyState text={t('history.emptyNone')}>
          <Link className="button" href="/playground">
            {t('history.goPlayground')}
          </Link>
        </EmptyState>
      )}
      {items && items.length > 0 && (
        <ul className="history-grid">
          {items.map((g) => (
            <li key={g.id} data-testid="history-item" data-status={g.status}>
              {g.prompt && <p className="prompt-line">{g.prompt}</p>}
              {g.status === 'completed' && <GenerationResult generation={g} compact />}
              {g.status === 'failed' && <p className="status-failed">{g.error}</p>}
              <p className="meta">
                <span className={`status-${g.status}`}>{t(`history.status.${g.status}` as MessageKey)}</span> · <code>{g.model_slug}</code>{' '}
                · {t('history.tokens', { n: g.tokens_spent })}
                <br />
                {formatDateTime(g.created_at, lang)}
              </p>
              <button
                type="button"
                className="secondary small"
                aria-label={t('history.detailsOf', { model: g.model_slug, id: String(g.id) })}
                onClick={() => setOpen(g)}
              >
                {t('history.details')}
              </button>
            </li>
          ))}
        </ul>
      )}
      {cursor && (
        <button type="button" className="secondary" onClick={() => void load(cursor)}>
          {t('history.more')}
        </button>
      )}
      <Dialog
        open={open !== null}
        wide
        title={open ? t('history.detailsOf', { model: open.model_slug, id: String(open.id) }) : ''}
        onClose={() => setOpen(null)}
      >
        {open && <EntryDetails entry={open} onDelete={() => remove(open)} />}
        <div className="row end">
          <button type="button" className="secondary" onClick={() => setOpen(null)}>
            {t('common.close')}
          </button>
        </div>
      </Dialog>
    </>
  );
}
