import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useApp } from '../../app-context';
import { Alert } from '../../components/Alert';
import { EmptyState } from '../../components/EmptyState';
import { formatDate, formatDateTime, formatNumber, planName } from '../../lib/format';
import { useAction, useLoad } from './use-load';

type AdminUser = components['schemas']['AdminUser'];
const PLANS = ['free', 'basic', 'pro', 'vip', 'elite'] as const;

/** Find an account, then see and change it: grant, plan, block, sign out everywhere. */
export function Users() {
  const { t, lang } = useApp();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [openId, setOpenId] = useState<number | null>(null);
  const list = useLoad(
    async () => unwrap(await api.GET('/api/v2/admin/users', { params: { query: { limit: 50, ...(query ? { q: query } : {}) } } })),
    [query],
  );
  if (openId !== null) return <UserPage id={openId} onBack={() => setOpenId(null)} />;
  return (
    <>
      <form
        className="row card"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(q.trim());
        }}
      >
        <label htmlFor="admin-user-q">{t('admin.users.search')}</label>
        <input id="admin-user-q" value={q} onChange={(e) => setQ(e.target.value)} />
        <button type="submit">{t('admin.users.find')}</button>
      </form>
      {list.error && <Alert kind="error">{list.error}</Alert>}
      {list.data && list.data.items.length === 0 && <EmptyState text={t('admin.users.empty')} />}
      {list.data && list.data.items.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t('admin.users.title')}>
          <table className="log">
            <thead>
              <tr>
                <th scope="col">{t('admin.users.account')}</th>
                <th scope="col">{t('admin.users.plan')}</th>
                <th scope="col">{t('admin.users.balance')}</th>
                <th scope="col">{t('admin.users.state')}</th>
                <th scope="col">{t('admin.users.created')}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((u) => (
                <tr key={u.id}>
                  <td>
                    <button type="button" className="link" onClick={() => setOpenId(u.id)}>
                      #{u.id} {u.name}
                    </button>
                    <div className="hint">
                      {[u.email, u.phone, u.telegram_username && `@${u.telegram_username}`].filter(Boolean).join(' · ')}
                    </div>
                  </td>
                  <td>{planName(u.plan)}</td>
                  <td>{formatNumber(u.token_balance, lang)}</td>
                  <td>{u.blocked ? t('admin.users.blocked') : t('admin.users.active')}</td>
                  <td>{formatDate(u.created_at, lang)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function UserPage({ id, onBack }: { id: number; onBack(): void }) {
  const { t, lang } = useApp();
  const detail = useLoad(async () => unwrap(await api.GET('/api/v2/admin/users/{id}', { params: { path: { id } } })), [id]);
  const { notice, failure, run } = useAction(detail.reload);
  const [tokens, setTokens] = useState('1000');
  const [reason, setReason] = useState('');
  const [plan, setPlan] = useState<string>('pro');
  const [expires, setExpires] = useState('');
  const [blockReason, setBlockReason] = useState('');
  const act = (action: () => Promise<unknown>, done: string) => run(action, () => done);
  const u: AdminUser | undefined = detail.data?.user;
  return (
    <>
      <button type="button" className="secondary" onClick={onBack}>
        {t('admin.users.back')}
      </button>
      {detail.error && <Alert kind="error">{detail.error}</Alert>}
      {u && detail.data && (
        <>
          <h2>{t('admin.users.titleOne', { name: `#${u.id} ${u.name}` })}</h2>
          <dl className="card" data-testid="admin-user-summary">
            <dt>{t('admin.users.plan')}</dt>
            <dd>
              {planName(u.plan)}
              {u.plan_expires_at ? ` · ${t('admin.users.until', { date: formatDate(u.plan_expires_at, lang) })}` : ''}
            </dd>
            <dt>{t('admin.users.balance')}</dt>
            <dd data-testid="admin-user-balance">
              {formatNumber(u.token_balance, lang)} ({t('admin.users.bonus', { n: formatNumber(u.bonus_tokens, lang) })})
            </dd>
            <dt>{t('admin.users.state')}</dt>
            <dd>{u.blocked ? `${t('admin.users.blocked')}: ${u.blocked_reason ?? ''}` : t('admin.users.active')}</dd>
          </dl>
          {notice && <Alert kind="success">{notice}</Alert>}
          {failure && <Alert kind="error">{failure}</Alert>}
          <form
            className="card"
            aria-label={t('admin.users.grant')}
            onSubmit={(e) => {
              e.preventDefault();
              void act(
                async () =>
                  unwrap(
                    await api.POST('/api/v2/admin/users/{id}/grant', {
                      params: { path: { id } },
                      body: { bonus_tokens: Number(tokens), reason },
                    }),
                  ),
                t('admin.users.granted', { n: formatNumber(Number(tokens), lang) }),
              );
            }}
          >
            <h3>{t('admin.users.grant')}</h3>
            <div className="row fields">
              <div>
                <label htmlFor="grant-tokens">{t('admin.users.grantTokens')}</label>
                <input id="grant-tokens" type="number" min={1} max={1000000} value={tokens} onChange={(e) => setTokens(e.target.value)} />
              </div>
              <div>
                <label htmlFor="grant-reason">{t('admin.users.reason')}</label>
                <input id="grant-reason" value={reason} onChange={(e) => setReason(e.target.value)} />
              </div>
            </div>
            <button type="submit">{t('admin.users.grant')}</button>
          </form>
          <form
            className="card"
            aria-label={t('admin.users.setPlan')}
            onSubmit={(e) => {
              e.preventDefault();
              void act(
                async () =>
                  unwrap(
                    await api.POST('/api/v2/admin/users/{id}/plan', {
                      params: { path: { id } },
                      body: { plan, expires_at: expires ? new Date(`${expires}T00:00:00Z`).toISOString() : null },
                    }),
                  ),
                t('admin.users.planSet', { plan: planName(plan) }),
              );
            }}
          >
            <h3>{t('admin.users.setPlan')}</h3>
            <div className="row fields">
              <div>
                <label htmlFor="plan-slug">{t('admin.users.plan')}</label>
                <select id="plan-slug" value={plan} onChange={(e) => setPlan(e.target.value)}>
                  {PLANS.map((p) => (
                    <option key={p} value={p}>
                      {planName(p)}
                    </option>
                  ))}
                </select>
              </div>
              <div>
                <label htmlFor="plan-expires">{t('admin.users.expires')}</label>
                <input id="plan-expires" type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
              </div>
            </div>
            <button type="submit">{t('admin.users.setPlan')}</button>
          </form>
          <div className="card">
            <div className="row">
              {!u.blocked && (
                <>
                  <label htmlFor="block-reason">{t('admin.users.reason')}</label>
                  <input id="block-reason" value={blockReason} onChange={(e) => setBlockReason(e.target.value)} />
                </>
              )}
              <button
                type="button"
                className={u.blocked ? 'secondary' : 'danger'}
                onClick={() =>
                  void act(
                    async () =>
                      unwrap(
                        await api.POST('/api/v2/admin/users/{id}/block', {
                          params: { path: { id } },
                          body: u.blocked ? { blocked: false } : { blocked: true, reason: blockReason },
                        }),
                      ),
                    u.blocked ? t('admin.users.unblocked') : t('admin.users.blockedNow'),
                  )
                }
              >
                {u.blocked ? t('admin.users.unblock') : t('admin.users.block')}
              </button>
              <button
                type="button"
                className="secondary"
                onClick={() =>
                  void act(
                    async () => unwrap(await api.POST('/api/v2/admin/users/{id}/sessions/revoke', { params: { path: { id } } })),
                    t('admin.users.revoked'),
                  )
                }
              >
                {t('admin.users.revoke')}
              </button>
            </div>
            <p className="hint">{t('admin.users.revokeText')}</p>
          </div>
          <h3>{t('admin.users.ledger')}</h3>
          {detail.data.ledger.length === 0 ? (
            <EmptyState text={t('admin.users.noLedger')} />
          ) : (
            <div className="table-wrap" tabIndex={0} role="region" aria-label={t('admin.users.ledger')}>
              <table className="log">
                <thead>
                  <tr>
                    <th scope="col">{t('admin.audit.when')}</th>
                    <th scope="col">{t('admin.audit.action')}</th>
                    <th scope="col">{t('admin.users.change')}</th>
                  </tr>
                </thead>
                <tbody>
                  {detail.data.ledger.map((l) => (
                    <tr key={l.id}>
                      <td>{formatDateTime(l.created_at, lang)}</td>
                      <td>
                        {l.kind} {l.note ?? ''}
                      </td>
                      <td>{formatNumber(l.plan_delta + l.bonus_delta, lang)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <h3>{t('admin.users.keys')}</h3>
          {detail.data.keys.length === 0 ? (
            <EmptyState text={t('admin.users.noKeys')} />
          ) : (
            <ul>
              {detail.data.keys.map((k) => (
                <li key={k.id}>
                  {k.name} · {formatDate(k.created_at, lang)}
                </li>
              ))}
            </ul>
          )}
          <h3>{t('admin.users.sessions')}</h3>
          {detail.data.sessions.length === 0 ? (
            <EmptyState text={t('admin.users.noSessions')} />
          ) : (
            <ul>
              {detail.data.sessions.map((s) => (
                <li key={s.id}>
                  {s.user_agent ?? '—'} · {formatDateTime(s.created_at, lang)}
                </li>
              ))}
            </ul>
          )}
          <h3>{t('admin.users.generations')}</h3>
          {detail.data.generations.length === 0 ? (
            <EmptyState text={t('admin.users.noGenerations')} />
          ) : (
            <ul>
              {detail.data.generations.map((g) => (
                <li key={g.id}>
                  #{g.id} {g.model_slug} · {g.status} · {formatDateTime(g.created_at, lang)}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </>
  );
}
