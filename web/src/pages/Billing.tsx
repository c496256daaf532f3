import { useEffect, useState } from 'react';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { describeError } from '../lib/describe-error';
import { formatDateTime, formatNumber, planName } from '../lib/format';

type Article = components['schemas']['Article'];
type Order = components['schemas']['Order'];

function money(amount: number, currency: string, lang: 'en' | 'ru'): string {
  try {
    return new Intl.NumberFormat(lang === 'ru' ? 'ru-RU' : 'en-GB', { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** Buy tokens or a plan through the carrier's checkout page, and see the orders. */
export function Billing() {
  const { t, lang } = useApp();
  const [articles, setArticles] = useState<Article[] | null>(null);
  const [orders, setOrders] = useState<Order[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    void (async () => {
      try {
        const [a, o] = await Promise.all([api.GET('/api/v2/payments/articles'), api.GET('/api/v2/payments/orders')]);
        setArticles(unwrap(a).articles);
        setOrders(unwrap(o).orders);
      } catch (err) {
        setError(describeError(err, t));
      }
    })();
  }, [t]);

  const buy = async (article: Article) => {
    setError(null);
    setBusy(article.id);
    try {
      const checkout = unwrap(await api.POST('/api/v2/payments/carrier/initiate', { body: { article_id: article.id, return_url: `${window.location.origin}/billing` } }));
      if (checkout.confirmation_url) window.location.assign(checkout.confirmation_url);
      else setOrders(unwrap(await api.GET('/api/v2/payments/orders')).orders);
    } catch (err) {
      setError(describeError(err, t));
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <h1>{t('billing.title')}</h1>
      {error && <Alert kind="error">{error}</Alert>}
      <h2>{t('billing.articles')}</h2>
      {articles && articles.length === 0 && <p>{t('billing.unavailable')}</p>}
      {articles && (
        <ul className="cards plain">
          {articles.map((a) => (
            <li key={a.id} className="card" data-testid="article">
              <h3>{a.kind === 'tokens' ? t('billing.tokens', { n: formatNumber(a.tokens ?? 0, lang) }) : t('billing.plan', { plan: planName(a.plan), days: a.period_days ?? 30 })}</h3>
              <p className="big">{money(a.price.amount, a.price.currency, lang)}</p>
              <button type="button" disabled={busy !== null} aria-label={`${t('billing.buy')}: ${a.title}`} onClick={() => void buy(a)}>
                {busy === a.id ? t('billing.redirecting') : t('billing.buy')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <h2>{t('billing.orders')}</h2>
      {orders && orders.length === 0 && <p>{t('billing.noOrders')}</p>}
      {orders && orders.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('billing.order')}</th>
                <th scope="col">{t('billing.status')}</th>
                <th scope="col">{t('billing.amount')}</th>
                <th scope="col">{t('billing.date')}</th>
              </tr>
            </thead>
            <tbody>
              {orders.map((o) => (
                <tr key={o.id} data-testid="order-row">
                  <td>{o.kind === 'tokens' ? t('billing.tokens', { n: formatNumber(o.tokens ?? 0, lang) }) : t('billing.plan', { plan: planName(o.plan), days: o.period_days ?? 30 })}</td>
                  <td>{o.status}</td>
                  <td>{money(o.amount, o.currency, lang)}</td>
                  <td>{formatDateTime(o.created_at, lang)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
