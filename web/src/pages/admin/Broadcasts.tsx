import { useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import { EmptyState } from '../../components/EmptyState';
import type { MessageKey } from '../../i18n/en';
import { formatDateTime, planName } from '../../lib/format';
import { useAction, useLoad } from './use-load';

const PLANS = ['free', 'basic', 'pro', 'vip', 'elite'] as const;
const MAX_LENGTH = 4096;

/** Compose a broadcast for a segment of the bot's users; follow the earlier ones' progress; cancel one. */
export function Broadcasts() {
  const { t, lang } = useApp();
  const list = useLoad(async () => unwrap(await api.GET('/api/v2/admin/broadcasts', { params: { query: { limit: 20 } } })), []);
  const [text, setText] = useState('');
  const [plans, setPlans] = useState<string[]>([]);
  const [language, setLanguage] = useState<'' | 'en' | 'ru'>('');
  const [activeDays, setActiveDays] = useState('');

  // While one is on its way, its progress is read again every two seconds.
  const sending = list.data?.items.some((b) => b.status === 'queued' || b.status === 'sending') ?? false;
  const { reload } = list;
  useEffect(() => {
    if (!sending) return;
    const timer = setInterval(reload, 2000);
    return () => clearInterval(timer);
  }, [sending, reload]);

  const { failure, run } = useAction(list.reload);

  const send = () => {
    const segment = {
      ...(plans.length > 0 ? { plans } : {}),
      ...(language ? { language } : {}),
      ...(activeDays ? { active_days: Number(activeDays) } : {}),
    };
    void run(
      async () => unwrap(await api.POST('/api/v2/admin/broadcasts', { body: { text, segment } })),
      () => {
        setText('');
        return null;
      },
    );
  };
  const cancel = (id: number) =>
    run(async () => unwrap(await api.POST('/api/v2/admin/broadcasts/{id}/cancel', { params: { path: { id } } })));

  return (
    <>
      <form
        className="card"
        aria-label={t('admin.broadcasts.compose')}
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <h2>{t('admin.broadcasts.compose')}</h2>
        <label htmlFor="broadcast-text">{t('admin.broadcasts.text')}</label>
        <textarea id="broadcast-text" rows={5} maxLength={MAX_LENGTH} value={text} onChange={(e) => setText(e.target.value)} />
        <p className="hint">
          {text.length} / {MAX_LENGTH}
        </p>
        <fieldset>
          <legend>{t('admin.broadcasts.plans')}</legend>
          <div className="row check">
            {PLANS.map((p) => (
              <label key={p}>
                <input
                  type="checkbox"
                  checked={plans.includes(p)}
                  onChange={(e) => setPlans((all) => (e.target.checked ? [...all, p] : all.filter((x) => x !== p)))}
                />{' '}
                {planName(p)}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="row fields">
          <div>
            <label htmlFor="broadcast-language">{t('admin.broadcasts.language')}</label>
            <select id="broadcast-language" value={language} onChange={(e) => setLanguage(e.target.value as '' | 'en' | 'ru')}>
              <option value="">{t('admin.any')}</option>
              <option value="en">English</option>
              <option value="ru">Русский</option>
            </select>
          </div>
          <div>
            <label htmlFor="broadcast-days">{t('admin.broadcasts.activeDays')}</label>
            <input id="broadcast-days" type="number" min={1} max={365} value={activeDays} onChange={(e) => setActiveDays(e.target.value)} />
          </div>
        </div>
        <p className="hint">{t('admin.broadcasts.segmentHint')}</p>
        <button type="submit">{t('admin.broadcasts.send')}</button>
      </form>
      {(failure ?? list.error) && <Alert kind="error">{failure ?? list.error}</Alert>}
      <h2>{t('admin.broadcasts.earlier')}</h2>
      {list.data && list.data.items.length === 0 && <EmptyState text={t('admin.broadcasts.empty')} />}
      {list.data && list.data.items.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('admin.broadcasts.earlier')}>
          <table className="log">
            <thead>
              <tr>
                <th scope="col">{t('admin.broadcasts.text')}</th>
                <th scope="col">{t('admin.orders.status')}</th>
                <th scope="col">{t('admin.broadcasts.progress')}</th>
                <th scope="col">{t('admin.audit.when')}</th>
                <th scope="col">{t('admin.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((b) => (
                <tr key={b.id}>
                  <td>
                    #{b.id} {b.text.length > 80 ? `${b.text.slice(0, 80)}…` : b.text}
                  </td>
                  <td>{t(`admin.broadcasts.status.${b.status}` as MessageKey)}</td>
                  <td data-testid={`broadcast-progress-${b.id}`}>
                    {t('admin.broadcasts.counts', {
                      sent: String(b.sent),
                      total: String(b.total),
                      failed: String(b.failed),
                      blocked: String(b.blocked),
                    })}
                  </td>
                  <td>{formatDateTime(b.created_at, lang)}</td>
                  <td>
                    {(b.status === 'queued' || b.status === 'sending') && (
                      <button type="button" className="secondary" onClick={() => void cancel(b.id)}>
                        {t('admin.broadcasts.cancel')}
                      </button>
                    )}
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
