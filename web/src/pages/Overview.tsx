import { useEffect, useState } from 'react';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { Link } from '../components/Link';
import { RangePicker } from '../components/RangePicker';
import { UsageChart } from '../components/UsageChart';
import { UsageBreakdown } from '../components/UsageBreakdown';
import { lastDays, type DayRange } from '../lib/date-range';
import { describeError } from '../lib/describe-error';
import { formatDate, formatDateTime, formatNumber, planName } from '../lib/format';
import { isUnlimited, readRateLimit, type RateLimitState } from '../lib/rate-limit';

type Balance = components['schemas']['Balance'];
type DailyUsage = components['schemas']['DailyUsage'];

interface Usage {
  days: DailyUsage;
  byModel: DailyUsage;
  byKey: DailyUsage;
}

export default function Overview() {
  const { t, lang } = useApp();
  const [balance, setBalance] = useState<Balance | null>(null);
  const [limits, setLimits] = useState<RateLimitState | null>(null);
  const [range, setRange] = useState<DayRange>(() => lastDays(30));
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    // unwrap throws on an error answer: the catch after the then sees it too.
    api
      .GET('/api/v2/user/balance')
      .then((b) => {
        if (!live) return;
        setBalance(unwrap(b));
        setLimits(readRateLimit(b.response.headers));
      })
      .catch((err: unknown) => live && setError(describeError(err, t)));
    return () => {
      live = false;
    };
  }, [t]);

  useEffect(() => {
    let live = true;
    const get = (group_by: 'day' | 'model' | 'key') =>
      api.GET('/api/v2/user/usage', { params: { query: { ...range, group_by } } }).then(unwrap);
    Promise.all([get('day'), get('model'), get('key')]).then(
      ([days, byModel, byKey]) => {
        if (!live) return;
        setError(null);
        setUsage({ days, byModel, byKey });
      },
      (err: unknown) => live && setError(describeError(err, t)),
    );
    return () => {
      live = false;
    };
  }, [range, t]);

  const limit = (label: string, remaining: number, max: number, testId: string) => (
    <div className="stat" data-testid={testId}>
      <span className="stat-label">{label}</span>
      <span className="stat-value">
        {isUnlimited(max)
          ? t('overview.unlimited')
          : t('overview.remaining', { remaining: formatNumber(remaining, lang), limit: formatNumber(max, lang) })}
      </span>
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
            <p className="big" data-testid="plan">
              {planName(balance.plan)}
            </p>
            <p>
              {balance.plan_expires_at
                ? t('overview.expires', { date: formatDate(balance.plan_expires_at, lang) })
                : t('overview.noExpiry')}
            </p>
          </section>
          <section className="card" aria-labelledby="balance-h">
            <h2 id="balance-h">{t('overview.balance')}</h2>
            <p className="big" data-testid="token-balance">
              {t('overview.tokens', { n: balance.token_balance })}
            </p>
            <dl className="split">
              <dt>{t('overview.planTokens')}</dt>
              <dd data-testid="plan-tokens">{t('overview.tokens', { n: balance.plan_tokens_remaining })}</dd>
              <dt>{t('overview.bonusTokens')}</dt>
              <dd data-testid="bonus-tokens">{t('overview.tokens', { n: balance.bonus_tokens })}</dd>
              {balance.plan !== 'free' && (
                <>
                  <dt>{t('overview.nextRefill')}</dt>
                  <dd data-testid="next-refill">{formatDateTime(balance.next_refill_at, lang)}</dd>
                </>
              )}
            </dl>
            {balance.plan === 'free' && (
              <p className="hint" data-testid="no-refill">
                <Link href="/billing">{t('overview.noRefill')}</Link>
              </p>
            )}
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
      <section className="card wide" aria-labelledby="usage-h">
        <h2 id="usage-h">{t('overview.usage')}</h2>
        <RangePicker idPrefix="usage" range={range} onChange={setRange} />
        {usage && <UsageChart usage={usage.days} />}
        {usage && usage.days.total.count === 0 && (
          <p>
            <Link className="button" href="/playground">
              {t('overview.usageEmptyAction')}
            </Link>
          </p>
        )}
      </section>
      {usage && usage.days.total.count > 0 && (
        <div className="cards two">
          <UsageBreakdown id="by-model" title={t('overview.byModel')} usage={usage.byModel} nameOf={(g) => g.name ?? String(g.id)} />
          <UsageBreakdown
            id="by-key"
            title={t('overview.byKey')}
            usage={usage.byKey}
            nameOf={(g) => (g.id === null ? t('overview.noKey') : (g.name ?? t('overview.deletedKey', { id: String(g.id) })))}
          />
        </div>
      )}
    </>
  );
}
