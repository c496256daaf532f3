import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import { EmptyState } from '../../components/EmptyState';
import { formatDate, formatNumber, planName } from '../../lib/format';
import { useAction, useLoad } from './use-load';

const PAID_PLANS = ['basic', 'pro', 'vip', 'elite'] as const;

/** Make a promo code (bonus tokens, or a plan for some days; uses; expiry) and see the codes with their uses. */
export function Promos() {
  const { t, lang } = useApp();
  const list = useLoad(async () => unwrap(await api.GET('/api/v2/admin/promo-codes', { params: { query: { limit: 50 } } })), []);
  const [code, setCode] = useState('');
  const [kind, setKind] = useState<'tokens' | 'plan'>('tokens');
  const [tokens, setTokens] = useState('1000');
  const [plan, setPlan] = useState<string>('pro');
  const [days, setDays] = useState('7');
  const [maxUses, setMaxUses] = useState('100');
  const [expires, setExpires] = useState('');
  const { notice, failure, run } = useAction(list.reload);

  const create = () => {
    const reward = kind === 'tokens' ? { bonus_tokens: Number(tokens) } : { plan, days: Number(days) };
    const body = {
      ...(code.trim() ? { code: code.trim() } : {}),
      ...reward,
      max_uses: Number(maxUses),
      expires_at: expires ? new Date(`${expires}T23:59:59Z`).toISOString() : null,
    };
    void run(
      async () => unwrap(await api.POST('/api/v2/admin/promo-codes', { body })),
      (made) => {
        setCode('');
        return t('admin.promo.created', { code: made.code });
      },
    );
  };
  return (
    <>
      <form
        className="card"
        aria-label={t('admin.promo.new')}
        onSubmit={(e) => {
          e.preventDefault();
          create();
        }}
      >
        <h2>{t('admin.promo.new')}</h2>
        <div className="row fields">
          <div>
            <label htmlFor="promo-code">{t('admin.promo.codeOptional')}</label>
            <input id="promo-code" value={code} onChange={(e) => setCode(e.target.value)} />
          </div>
          <div>
            <label htmlFor="promo-kind">{t('admin.promo.gives')}</label>
            <select id="promo-kind" value={kind} onChange={(e) => setKind(e.target.value as 'tokens' | 'plan')}>
              <option value="tokens">{t('admin.promo.kindTokens')}</option>
              <option value="plan">{t('admin.promo.kindPlan')}</option>
            </select>
          </div>
          {kind === 'tokens' ? (
            <div>
              <label htmlFor="promo-tokens">{t('admin.promo.tokens')}</label>
              <input id="promo-tokens" type="number" min={1} max={1000000} value={tokens} onChange={(e) => setTokens(e.target.value)} />
            </div>
          ) : (
            <>
              <div>
                <label htmlFor="promo-plan">{t('admin.users.plan')}</label>
                <select id="promo-plan" value={plan} onChange={(e) => setPlan(e.target.value)}>
                  {PAID_PLANS.map((p) => (
                    <option key={p} value={p}>
                      {planName(p)}
                    </option>
                  ))}
                </select>
              </div>
              <div>
                <label htmlFor="promo-days">{t('admin.promo.days')}</label>
                <input id="promo-days" type="number" min={1} max={365} value={days} onChange={(e) => setDays(e.target.value)} />
              </div>
            </>
          )}
          <div>
            <label htmlFor="promo-uses">{t('admin.promo.maxUses')}</label>
            <input id="promo-uses" type="number" min={1} value={maxUses} onChange={(e) => setMaxUses(e.target.value)} />
          </div>
          <div>
            <label htmlFor="promo-expires">{t('admin.promo.expires')}</label>
            <input id="promo-expires" type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
          </div>
        </div>
        <button type="submit">{t('admin.promo.create')}</button>
      </form>
      {notice && <Alert kind="success">{notice}</Alert>}
      {(failure ?? list.error) && <Alert kind="error">{failure ?? list.error}</Alert>}
      <h2>{t('admin.promo.title')}</h2>
      {list.data && list.data.items.length === 0 && <EmptyState text={t('admin.promo.empty')} />}
      {list.data && list.data.items.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('admin.promo.title')}>
          <table className="log">
            <thead>
              <tr>
                <th scope="col">{t('admin.promo.code')}</th>
                <th scope="col">{t('admin.promo.gives')}</th>
                <th scope="col">{t('admin.promo.uses')}</th>
                <th scope="col">{t('admin.promo.expires')}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((p) => (
                <tr key={p.id}>
                  <th scope="row">{p.code}</th>
                  <td>
                    {p.bonus_tokens !== null
                      ? `${formatNumber(p.bonus_tokens, lang)} tkn`
                      : t('admin.promo.planDays', { plan: planName(p.plan), days: String(p.days ?? '') })}
                  </td>
                  <td>{t('admin.promo.usesOf', { uses: String(p.uses), max: String(p.max_uses) })}</td>
                  <td>{p.expires_at ? formatDate(p.expires_at, lang) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
