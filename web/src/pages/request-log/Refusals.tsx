import { useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import { EmptyState } from '../../components/EmptyState';
import type { MessageKey } from '../../i18n/en';
import { describeError } from '../../lib/describe-error';
import { formatDateTime, formatNumber } from '../../lib/format';

type Refusal = components['schemas']['Refusal'];
type ApiKey = components['schemas']['ApiKey'];

const PAGE = 25;
const STATUSES = [403, 402, 429] as const;

/** The calls the service turned away before running anything (plan, key scope, balance, limits), newest first. */
export function Refusals({ keys }: { keys: ApiKey[] }) {
  const { t, lang } = useApp();
  const [status, setStatus] = useState<'' | (typeof STATUSES)[number]>('');
  const [items, setItems] = useState<Refusal[] | null>(null);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const cursor = cursors.at(-1) ?? null;
  useEffect(() => {
    let live = true;
    const query = { limit: PAGE, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) };
    api
      .GET('/api/v2/user/refusals', { params: { query } })
      .then(unwrap)
      .then(
        (page) => {
          if (!live) return;
          setError(null);
          setItems(page.items);
          setNext(page.next_cursor);
        },
        (err: unknown) => live && setError(describeError(err, t)),
      );
    return () => {
      live = false;
    };
  }, [status, cursor, t]);

  const keyName = (id: number) => keys.find((k) => k.id === id)?.name ?? t('log.deletedKey', { id: String(id) });
  const pageNumber = cursors.length;
  return (
    <>
      <p className="hint">{t('log.refusedHint')}</p>
      <form className="filters card" onSubmit={(e) => e.preventDefault()} aria-label={t('log.filters')}>
        <div>
          <label htmlFor="refused-status">{t('log.refusedStatus')}</label>
          <select
            id="refused-status"
            value={status}
            onChange={(e) => {
              setStatus(e.target.value ? (Number(e.target.value) as (typeof STATUSES)[number]) : '');
              setCursors([null]);
            }}
          >
            <option value="">{t('log.allRefusals')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`log.refused.${s}` as MessageKey)}
              </option>
            ))}
          </select>
        </div>
      </form>
      {error && <Alert kind="error">{error}</Alert>}
      {items === null && !error && <p role="status">{t('app.loading')}</p>}
      {items && items.length === 0 && <EmptyState text={t('log.emptyRefused')} />}
      {items && items.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('log.tabRefused')}>
          <table className="log">
            <thead>
              <tr>
                <th scope="col">{t('log.time')}</th>
                <th scope="col">{t('log.door')}</th>
                <th scope="col">{t('log.key')}</th>
                <th scope="col">{t('log.route')}</th>
                <th scope="col">{t('log.model')}</th>
                <th scope="col">{t('log.status')}</th>
                <th scope="col">{t('log.reason')}</th>
                <th scope="col" className="num">
                  {t('log.count')}
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((r) => (
                <tr key={r.id} data-testid="refusal-row" data-status={r.status}>
                  <td>{formatDateTime(r.last_at, lang)}</td>
                  <td>{t(`door.${r.door}` as MessageKey)}</td>
                  <td>{r.api_key_id === null ? '—' : keyName(r.api_key_id)}</td>
                  <td>
                    <code>{r.route}</code>
                  </td>
                  <td>{r.model_slug ? <code>{r.model_slug}</code> : '—'}</td>
                  <td>
                    <span className="status-failed">{r.status}</span> <code>{r.error}</code>
                  </td>
                  <td className="wrap">{r.message}</td>
                  <td className="num">{formatNumber(r.count, lang)}</td>
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
    </>
  );
}
