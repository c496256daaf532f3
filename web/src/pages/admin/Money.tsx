import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { EmptyState } from '../../components/EmptyState';
import type { MessageKey } from '../../i18n/en';
import { formatDateTime, formatNumber } from '../../lib/format';
import { useAction, useLoad } from './use-load';

const usd = (n: number) => n.toFixed(2);

/** Revenue per day or model (RUB, Stars) beside vendor cost and margin; the orders, with a refund. */
export function Money() {
  const { t, lang } = useApp();
  const [groupBy, setGroupBy] = useState<'day' | 'model'>('day');
  const revenue = useLoad(
    async () => unwrap(await api.GET('/api/v2/admin/revenue', { params: { query: { group_by: groupBy } } })),
    [groupBy],
  );
  const orders = useLoad(async () => unwrap(await api.GET('/api/v2/admin/orders', { params: { query: { limit: 50 } } })), []);
  const [refunding, setRefunding] = useState<number | null>(null);
  const { notice, failure, run } = useAction(orders.reload);

  const refund = (id: number) => {
    setRefunding(null);
    void run(
      async () => unwrap(await api.POST('/api/v2/admin/orders/{id}/refund', { params: { path: { id } } })),
      (r) => t(`admin.orders.refund.${r.state}` as MessageKey, { id: String(id), error: r.error ?? '' }),
    );
  };
  const r = revenue.data;
  return (
    <>
      <h2>{t('admin.money.revenue')}</h2>
      <div className="row">
        <label htmlFor="revenue-group">{t('admin.money.groupBy')}</label>
        <select id="revenue-group" value={groupBy} onChange={(e) => setGroupBy(e.target.value as 'day' | 'model')}>
          <option value="day">{t('admin.money.byDay')}</option>
          <option value="model">{t('admin.money.byModel')}</option>
        </select>
      </div>
      {revenue.error && <Alert kind="error">{revenue.error}</Alert>}
      {r && r.data.length === 0 && <EmptyState text={t('admin.money.empty')} />}
      {r && r.data.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('admin.money.revenue')}>
          <table className="log" data-testid="revenue-table">
            <thead>
              <tr>
                <th scope="col">{groupBy === 'day' ? t('admin.money.day') : t('admin.money.model')}</th>
                <th scope="col">{t('admin.money.rub')}</th>
                <th scope="col">{t('admin.money.stars')}</th>
                <th scope="col">{t('admin.money.generations')}</th>
                <th scope="col">{t('admin.money.tokens')}</th>
                <th scope="col">{t('admin.money.vendorCost')}</th>
                <th scope="col">{t('admin.money.margin')}</th>
              </tr>
            </thead>
            <tbody>
              {[...r.data, { key: t('admin.money.total'), ...r.totals }].map((line) => (
                <tr key={line.key}>
                  <th scope="row">{line.key}</th>
                  <td>{formatNumber(line.revenue_rub, lang)}</td>
                  <td>{formatNumber(line.revenue_stars, lang)}</td>
                  <td>{formatNumber(line.generations, lang)}</td>
                  <td>{formatNumber(line.tokens, lang)}</td>
                  <td>{usd(line.vendor_cost_usd)}</td>
                  <td>{usd(line.margin_usd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {r && <p className="hint">{t('admin.money.rates', { rub: String(r.rates.rub_per_usd), star: String(r.rates.usd_per_star) })}</p>}

      <h2>{t('admin.orders.title')}</h2>
      {notice && <Alert kind="success">{notice}</Alert>}
      {(failure ?? orders.error) && <Alert kind="error">{failure ?? orders.error}</Alert>}
      {orders.data && orders.data.data.length === 0 && <EmptyState text={t('admin.orders.empty')} />}
      {orders.data && orders.data.data.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('admin.orders.title')}>
          <table className="log">
            <thead>
              <tr>
                <th scope="col">{t('admin.orders.order')}</th>
                <th scope="col">{t('admin.orders.userId')}</th>
                <th scope="col">{t('admin.orders.status')}</th>
                <th scope="col">{t('admin.audit.when')}</th>
                <th scope="col">{t('admin.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {orders.data.data.map((o) => (
                <tr key={o.id}>
                  <td>
                    #{o.id} {o.reference} · {formatNumber(o.amount, lang)} {o.currency}
                  </td>
                  <td>{o.user_id}</td>
                  <td>{o.status}</td>
                  <td>{formatDateTime(o.created_at, lang)}</td>
                  <td>
                    {o.status === 'fulfilled' && (
                      <button type="button" className="secondary" onClick={() => setRefunding(o.id)}>
                        {t('admin.orders.refund')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={refunding !== null}
        title={t('admin.orders.refundTitle', { id: String(refunding ?? '') })}
        confirmLabel={t('admin.orders.refund')}
        cancelLabel={t('admin.cancel')}
        danger
        onConfirm={() => refunding !== null && refund(refunding)}
        onCancel={() => setRefunding(null)}
      >
        <p>{t('admin.orders.refundText')}</p>
      </ConfirmDialog>
    </>
  );
}
