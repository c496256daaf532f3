import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { session } from '../../api/session';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import { EmptyState } from '../../components/EmptyState';
import { describeError } from '../../lib/describe-error';
import { saveFile } from '../../lib/downloads';
import { formatDateTime } from '../../lib/format';
import { useLoad } from './use-load';

const show = (v: unknown) => (v === null || v === undefined ? '—' : JSON.stringify(v));

/** Every admin action (dashboard, bot, CLI), newest first, filtered by action; exported as CSV. */
export function Audit() {
  const { t, lang } = useApp();
  const [action, setAction] = useState('');
  const [applied, setApplied] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  const log = useLoad(
    async () =>
      unwrap(await api.GET('/api/v2/admin/audit', { params: { query: { limit: 100, ...(applied ? { action: applied } : {}) } } })),
    [applied],
  );
  // The CSV needs the session's bearer token, so it is fetched here and saved from memory.
  const downloadCsv = async () => {
    try {
      const res = await fetch(`/api/v2/admin/audit.csv${applied ? `?action=${encodeURIComponent(applied)}` : ''}`, {
        headers: session.token ? { Authorization: `Bearer ${session.token}` } : {},
      });
      if (!res.ok) throw new Error(`${res.status}`);
      saveFile('audit.csv', await res.text(), 'text/csv;charset=utf-8');
    } catch (err) {
      setFailure(describeError(err, t));
    }
  };
  return (
    <>
      <form
        className="filters card"
        aria-label={t('admin.audit.title')}
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(action.trim());
        }}
      >
        <div>
          <label htmlFor="audit-action">{t('admin.audit.action')}</label>
          <input id="audit-action" placeholder="user.*" value={action} onChange={(e) => setAction(e.target.value)} />
        </div>
        <button type="submit">{t('admin.show')}</button>
        <button type="button" className="secondary" onClick={() => void downloadCsv()}>
          {t('admin.audit.csv')}
        </button>
      </form>
      {(failure ?? log.error) && <Alert kind="error">{failure ?? log.error}</Alert>}
      {log.data && log.data.items.length === 0 && <EmptyState text={t('admin.audit.empty')} />}
      {log.data && log.data.items.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('admin.audit.title')}>
          <table className="log" data-testid="audit-table">
            <thead>
              <tr>
                <th scope="col">{t('admin.audit.when')}</th>
                <th scope="col">{t('admin.audit.actor')}</th>
                <th scope="col">{t('admin.audit.action')}</th>
                <th scope="col">{t('admin.audit.target')}</th>
                <th scope="col">{t('admin.audit.change')}</th>
              </tr>
            </thead>
            <tbody>
              {log.data.items.map((a) => (
                <tr key={a.id}>
                  <td>{formatDateTime(a.created_at, lang)}</td>
                  <td>{a.actor.label}</td>
                  <td>{a.action}</td>
                  <td>
                    {a.target.type} {a.target.id}
                  </td>
                  <td className="hint">
                    {show(a.before)} → {show(a.after)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
