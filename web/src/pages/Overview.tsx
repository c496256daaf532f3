import { useEffect, useState } from 'react';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { UsageChart } from '../components/UsageChart';
import { describeError } from '../lib/describe-error';
import { formatDate, formatDateTime, formatNumber, planName } from '../lib/format';
import { isUnlimited, readRateLimit, type RateLimitState } from '../lib/rate-limit';

type Balance = components['schemas']['Balance'];
type DailyUsage = components['schemas']['DailyUsage'];

export function Overview() {
  const { t, lang } = useApp();
  const [balance, setBalance] = useState<Balance | null>(null);
  const [limits, setLimits] = useState<RateLimitState | null>(null);
  const [usage, setUsage] = useState<DailyUsage | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const [b, u] = await Promise.all([api.GET('/api/v2/user/balance'), api.GET('/api/v2/user/usage', { params: { query: { days: 30 } } })]);
        if (!live) return;
        setBalance(unwrap(b));
        setLimits(readRateLimit(b.response.headers));
        setUsage(unwrap(u));
      } catch (err) {
        if (live) setError(describeError(err, t));
      }
    })();
    return () => {
      live = false;
    };
  }, [t]);

  const limit = (label: string, remaining: number, max: number, testId: string) => (
    <div className="stat" data-testid={testId}>
      <span className="stat-label">{label}</span>
      <span className="stat-value">{isUnlimited(max) ? t('overview.unlimited') : t('overview.remaining', { remaining: formatNumber(remaining, lang), limit: formatNumber(max, lang) })}</span>
      {!isUnlimited(max) && <meter min={0} max={max} value={remaining} aria-label={label} />}
    </div>
  );

  return (
    <>
      <h1>{t('overview.title')}</h1>
      {error && <Alert kind="error">{error}</Alert>}
      {balance && (
        <div className="cards">
          <section className="card" aria-labelledby="plan-h">
            <h2 id="plan-h">{t('overview.plan')}</h2>
            <p className="big" data-testid="plan">{planName(balance.plan)}</p>
            <p>{balance.plan_expires_at ? t('overview.expires', { date: formatDate(balance.plan_expires_at, lang) }) : t('overview.noExpiry')}</p>
          </section>
          <section className="card" aria-labelledby="balance-h">
            <h2 id="balance-h">{t('overview.balance')}</h2>
            <p className="big" data-testid="token-balance">{t('overview.tokens', { n: formatNumber(balance.token_balance, lang) })}</p>
            <dl className="split">
              <dt>{t('overview.planTokens')}</dt>
              <dd data-testid="plan-tokens">{formatNumber(balance.plan_tokens_remaining, lang)}</dd>
              <dt>{t('overview.bonusTokens')}</dt>
              <dd data-testid="bonus-tokens">{formatNumber(balance.bonus_tokens, lang)}</dd>
              <dt>{t('overview.nextRefill')}</dt>
              <dd>{formatDateTime(balance.next_refill_at, lang)}</dd>
            </dl>
          </section>
          {limits && (
            <section className="card" aria-labelledby="limits-h">
              <h2 id="limits-h">{t('overview.limits')}</h2>
              {limit(t('overview.hourly'), limits.remainingHour, limits.limitHour, 'limit-hour')}
              {limit(t('overview.daily'), limits.remainingDay, limits.limitDay, 'limit-day')}
            </section>
          )}
        </div>
      )}
      {usage && (
        <section className="card wide" aria-labelledby="usage-h">
          <h2 id="usage-h">{t('overview.usage')}</h2>
          <UsageChart usage={usage} />
        </section>
      )}
    </>
  );
}
