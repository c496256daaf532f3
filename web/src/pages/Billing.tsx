import { useEffect, useState } from 'react';
import type { MessageKey } from '../i18n/en';
import { pollUntil } from '../lib/poll';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { EmptyState } from '../components/EmptyState';
import { money } from '../lib/money';
import { PlanComparison } from './billing/PlanComparison';
import { RedeemCard } from './billing/RedeemCard';
import { describeError } from '../lib/describe-error';
import { formatDateTime, formatNumber, planName } from '../lib/format';
import { useStarsPurchase } from './billing/use-stars-purchase';

type Article = components['schemas']['Article'];
type Order = components['schemas']['Order'];
type Balance = components['schemas']['Balance'];
type Plan = components['schemas']['Plan'];

const RETURN_POLL_MS = 2000;
const RETURN_POLL_TRIES = 15;

/**
 * Buy tokens or a plan, and see the orders: through the carrier's checkout page, or inside Telegram (the Mini App)
 * with Stars, priced in Stars.
 */
export default function Billing() {
  const { t, lang, telegram } = useApp();
  const [articles, setArticles] = useState<Article[] | null>(null);
  const [orders, setOrders] = useState<Order[] | null>(null);
  const [balance, setBalance] = useState<Balance | null>(null);
  const [plans, setPlans] = useState<Plan[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Back from the checkout page (?paid=1): the newest order is watched until the payment is credited.
  const [returned] = useState(() => new URLSearchParams(window.location.search).get('paid') === '1');
  const [paid, setPaid] = useState<Order | null>(null);

  useEffect(() => {
    void (async () => {
      try {
        const [a, o, b, p] = await Promise.all([
          api.GET('/api/v2/payments/articles'),
          api.GET('/api/v2/payments/orders'),
          api.GET('/api/v2/user/balance'),
          api.GET('/api/v2/plans'),
        ]);
        setArticles(unwrap(a).articles);
        setOrders(unwrap(o).orders);
        setBalance(unwrap(b));
        setPlans(unwrap(p).plans);
      } catch (err) {
        setError(describeError(err, t));
      }
    })();
  }, [t]);

  useEffect(() => {
    if (!returned) return;
    const stop = new AbortController();
    let tries = 0;
    void pollUntil(
      async () => {
        tries += 1;
        const [o, b] = await Promise.all([api.GET('/api/v2/payments/orders'), api.GET('/api/v2/user/balance')]);
        const list = unwrap(o).orders;
        setOrders(list);
        setBalance(unwrap(b));
        const newest = list[0];
        if (newest?.status === 'fulfilled') setPaid(newest);
        return newest?.status !== 'pending' || tries >= RETURN_POLL_TRIES;
      },
      RETURN_POLL_MS,
      stop.signal,
    ).catch(() => undefined);
    return () => stop.abort();
  }, [returned]);

  const refresh = async () => {
    const [o, b] = await Promise.all([api.GET('/api/v2/payments/orders'), api.GET('/api/v2/user/balance')]);
    setOrders(unwrap(o).orders);
    setBalance(unwrap(b));
  };
  const stars = useStarsPurchase(refresh);
  const purchase = (article: Article) => void (telegram ? stars.buy(article) : buy(article));
  const working = busy ?? stars.busy;

  const what = (o: Pick<Order, 'kind' | 'tokens' | 'plan' | 'period_days'>) =>
    o.kind === 'tokens'
      ? t('billing.tokens', { n: o.tokens ?? 0 })
      : t('billing.plan', { plan: planName(o.plan), days: o.period_days ?? 30 });

  const buy = async (article: Article) => {
    setError(null);
    setBusy(article.id);
    try {
      const checkout = unwrap(
        await api.POST('/api/v2/payments/carrier/initiate', {
          body: { article_id: article.id, return_url: `${window.location.origin}/billing?paid=1` },
        }),
      );
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
      {paid && <Alert kind="success">{t('billing.paid', { what: what(paid) })}</Alert>}
      {returned && !paid && <Alert kind="info">{t('billing.confirming')}</Alert>}
      {error && <Alert kind="error">{error}</Alert>}
      {stars.note && <Alert kind={stars.note.kind}>{stars.note.text}</Alert>}
      {balance && (
        <section className="card" aria-labelledby="billing-balance-h">
          <h2 id="billing-balance-h">{t('overview.balance')}</h2>
          <p className="big" data-testid="billing-balance">
            {t('overview.tokens', { n: balance.token_balance })}
          </p>
          <p>{t('billing.currentPlan', { plan: planName(balance.plan) })}</p>
        </section>
      )}
      <RedeemCard onRedeemed={() => void api.GET('/api/v2/user/balance').then((b) => b.response.ok && b.data && setBalance(b.data))} />
      {plans && articles && balance && (
        <PlanComparison
          plans={plans}
          articles={articles}
          current={balance.plan}
          busy={working}
          inStars={telegram !== null}
          onBuy={purchase}
        />
      )}
      <h2>{t('billing.articles')}</h2>
      {articles && articles.length === 0 && <p>{t('billing.unavailable')}</p>}
      {articles && (
        <ul className="cards plain">
          {articles
            .filter((a) => a.kind === 'tokens')
            .map((a) => (
              <li key={a.id} className="card" data-testid="article">
                <h3>{what(a)}</h3>
                <p className="big">{telegram ? `${formatNumber(a.stars, lang)} ⭐` : money(a.price.amount, a.price.currency, lang)}</p>
                {telegram ? (
                  <button
                    type="button"
                    disabled={working !== null}
                    aria-label={t('billing.payStarsOf', { n: a.stars, title: a.title })}
                    onClick={() => purchase(a)}
                  >
                    {working === a.id ? t('billing.starsOpening') : t('billing.payStars', { n: a.stars })}
                  </button>
                ) : (
                  <button
                    type="button"
                    disabled={working !== null}
                    aria-label={`${t('billing.buy')}: ${a.title}`}
                    onClick={() => purchase(a)}
                  >
                    {working === a.id ? t('billing.redirecting') : t('billing.buy')}
                  </button>
                )}
              </li>
            ))}
        </ul>
      )}
      <h2>{t('billing.orders')}</h2>
      {orders && orders.length === 0 && <EmptyState text={t('billing.noOrders')} />}
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
                  <td>{what(o)}</td>
                  <td data-testid="order-status">{t(`billing.status.${o.status}` as MessageKey)}</td>
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
