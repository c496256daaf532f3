import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import { describeError } from '../../lib/describe-error';
import { formatDate, planName } from '../../lib/format';

type Redemption = components['schemas']['Redemption'];

/** A promo code's field: bonus tkn or plan days, once per account; the balance shown is the one after it. */
export function RedeemCard({ onRedeemed }: { onRedeemed(r: Redemption): void }) {
  const { t, lang } = useApp();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const redeem = async () => {
    setBusy(true);
    setDone(null);
    setError(null);
    try {
      const r = unwrap(await api.POST('/api/v2/user/redeem', { body: { code } }));
      const gave = [
        r.bonus_tokens !== undefined ? t('billing.redeem.tokens', { n: r.bonus_tokens }) : null,
        r.plan !== undefined ? t('billing.redeem.plan', { plan: planName(r.plan), date: formatDate(r.plan_expires_at, lang) }) : null,
      ].filter((s): s is string => s !== null);
      setDone(t('billing.redeem.done', { code: r.code, what: gave.join(', ') }));
      setCode('');
      onRedeemed(r);
    } catch (err) {
      setError(describeError(err, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="redeem-h">
      <h2 id="redeem-h">{t('billing.redeem.title')}</h2>
      {done && <Alert kind="success">{done}</Alert>}
      {error && <Alert kind="error">{error}</Alert>}
      <form
        className="row fields"
        onSubmit={(e) => {
          e.preventDefault();
          void redeem();
        }}
      >
        <label htmlFor="redeem-code" className="visually-hidden">
          {t('billing.redeem.code')}
        </label>
        <input
          id="redeem-code"
          placeholder={t('billing.redeem.code')}
          autoComplete="off"
          required
          maxLength={100}
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <button type="submit" disabled={busy || !code.trim()}>
          {t('billing.redeem.submit')}
        </button>
      </form>
    </section>
  );
}
