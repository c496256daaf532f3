import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import type { MessageKey } from '../../i18n/en';
import { formatDate, formatDateTime } from '../../lib/format';
import { useAction, useLoad } from './use-load';

/** Every model: in service or not, its rates beside the vendor's cost, the last check; and each vendor's health. */
export function Catalog() {
  const { t, lang } = useApp();
  const catalog = useLoad(async () => unwrap(await api.GET('/api/v2/admin/catalog')), []);
  const vendors = useLoad(async () => unwrap(await api.GET('/api/v2/admin/vendors')), []);
  const [filter, setFilter] = useState('');
  const { notice, failure, run } = useAction(catalog.reload);

  const toggle = (slug: string, enabled: boolean) =>
    run(
      async () => unwrap(await api.PATCH('/api/v2/admin/catalog/{slug}', { params: { path: { slug } }, body: { enabled } })),
      () => t('admin.catalog.saved', { slug }),
    );
  const models = (catalog.data?.data ?? []).filter((m) => `${m.slug} ${m.vendor}`.toLowerCase().includes(filter.toLowerCase()));
  return (
    <>
      <h2>{t('admin.catalog.title')}</h2>
      <div className="row">
        <label htmlFor="catalog-filter">{t('admin.catalog.filter')}</label>
        <input id="catalog-filter" value={filter} onChange={(e) => setFilter(e.target.value)} />
      </div>
      {notice && <Alert kind="success">{notice}</Alert>}
      {(failure ?? catalog.error) && <Alert kind="error">{failure ?? catalog.error}</Alert>}
      {catalog.data && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('admin.catalog.title')}>
          <table className="log">
            <thead>
              <tr>
                <th scope="col">{t('admin.catalog.model')}</th>
                <th scope="col">{t('admin.catalog.enabled')}</th>
                <th scope="col">{t('admin.catalog.replacement')}</th>
                <th scope="col">{t('admin.catalog.shutdown')}</th>
                <th scope="col">{t('admin.catalog.rates')}</th>
                <th scope="col">{t('admin.catalog.lastCheck')}</th>
              </tr>
            </thead>
            <tbody>
              {models.map((m) => (
                <tr key={m.slug}>
                  <th scope="row">
                    {m.slug}
                    <div className="hint">{m.vendor}</div>
                  </th>
                  <td>
                    <button type="button" className="secondary" aria-pressed={m.enabled} onClick={() => void toggle(m.slug, !m.enabled)}>
                      {m.enabled ? t('admin.catalog.on') : t('admin.catalog.off')}
                      <span className="visually-hidden"> {m.slug}</span>
                    </button>
                  </td>
                  <td>{m.replacement ?? t('admin.catalog.none')}</td>
                  <td>{m.shutdown_at ? formatDate(m.shutdown_at, lang) : '—'}</td>
                  <td>
                    {m.rates.map((r) => (
                      <div key={r.unit}>
                        {t('admin.catalog.rate', {
                          unit: r.unit,
                          tokens: String(r.tokens),
                          revenue: r.revenue_usd.toFixed(4),
                          usd: r.vendor_usd.toFixed(4),
                        })}
                        {r.below_cost && <strong> · {t('admin.catalog.belowCost')}</strong>}
                      </div>
                    ))}
                  </td>
                  <td>
                    {m.last_check
                      ? `${t(`admin.catalog.check.${m.last_check.findings.status}` as MessageKey)} · ${formatDateTime(m.last_check.at, lang)}`
                      : t('admin.catalog.neverChecked')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>{t('admin.vendors.title')}</h2>
      {vendors.error && <Alert kind="error">{vendors.error}</Alert>}
      {vendors.data && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('admin.vendors.title')}>
          <table className="log">
            <thead>
              <tr>
                <th scope="col">{t('admin.vendors.vendor')}</th>
                <th scope="col">{t('admin.vendors.breaker')}</th>
                <th scope="col">{t('admin.vendors.errorRate')}</th>
                <th scope="col">{t('admin.vendors.paused')}</th>
              </tr>
            </thead>
            <tbody>
              {vendors.data.data.map((v) => (
                <tr key={`${v.vendor}-${v.connection}`}>
                  <th scope="row">
                    {v.vendor} #{v.connection}
                    {v.sandbox ? ` (${t('admin.vendors.sandbox')})` : ''}
                  </th>
                  <td>{t(`admin.vendors.breaker.${v.breaker}` as MessageKey)}</td>
                  <td>
                    {v.error_rate_5m === null ? '—' : `${Math.round(v.error_rate_5m * 100)} %`} ({v.calls_5m})
                  </td>
                  <td>{v.quota_paused_until ? formatDateTime(v.quota_paused_until, lang) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
