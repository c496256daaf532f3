import { useEffect, useReducer, useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { session } from '../api/session';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { Dialog } from '../components/Dialog';
import { forgetConversations } from '../lib/conversations';
import { describeError } from '../lib/describe-error';
import { formatDateTime } from '../lib/format';
import { navigate } from '../lib/router';
import { deviceName } from '../lib/user-agent';
import { ReferralCard } from './account/ReferralCard';

type SignInSession = components['schemas']['SignInSession'];

/** Email verification, the invitation link, password, signed-in sessions and deleting the account. */
export default function Account() {
  const { t, lang, user } = useApp();
  const [sessions, setSessions] = useState<SignInSession[] | null>(null);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string; area: string } | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [confirmText, setConfirmText] = useState('');
  const [deletePassword, setDeletePassword] = useState('');
  const [deleteError, setDeleteError] = useState<string | null>(null);

  const say = (area: string, kind: 'success' | 'error', text: string) => setNotice({ area, kind, text });
  const shown = (area: string) => notice?.area === area && <Alert kind={notice.kind}>{notice.text}</Alert>;

  // Bumped after a change that ends sessions, to read the list again.
  const [sessionsVersion, reloadSessions] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    let live = true;
    api
      .GET('/api/v2/auth/sessions')
      .then(unwrap)
      .then(
        (r) => live && setSessions(r.sessions),
        (err: unknown) => live && setNotice({ area: 'sessions', kind: 'error', text: describeError(err, t) }),
      );
    return () => {
      live = false;
    };
  }, [t, sessionsVersion]);

  const changePassword = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    try {
      const done = unwrap(await api.POST('/api/v2/auth/change-password', { body: { current_password: current, new_password: next } }));
      setCurrent('');
      setNext('');
      say('password', 'success', t('account.passwordChanged', { n: done.sessions_ended }));
      reloadSessions();
    } catch (err) {
      say('password', 'error', describeError(err, t));
    }
  };

  const resend = async () => {
    setNotice(null);
    try {
      const sent = unwrap(await api.POST('/api/v2/auth/resend-verification'));
      say(
        'email',
        'success',
        sent.status === 'sent' ? t('account.verificationSent', { email: user?.email ?? '' }) : t('account.alreadyVerified'),
      );
    } catch (err) {
      say('email', 'error', describeError(err, t));
    }
  };

  const revoke = async (s: SignInSession) => {
    setNotice(null);
    try {
      unwrap(await api.DELETE('/api/v2/auth/sessions/{id}', { params: { path: { id: s.id } } }));
      say('sessions', 'success', t('account.sessionEnded', { device: deviceName(s.user_agent, t) }));
      reloadSessions();
    } catch (err) {
      say('sessions', 'error', describeError(err, t));
    }
  };

  const hasPassword = user?.auth_methods.email === true;
  const confirmWord = t('account.deleteWord');
  const deleteAccount = async (event: FormEvent) => {
    event.preventDefault();
    if (!user) return;
    setDeleteError(null);
    try {
      unwrap(await api.POST('/api/v2/user/delete', { body: hasPassword ? { password: deletePassword } : {} }));
      forgetConversations(user.id);
      session.clear();
      navigate('/sign-in?deleted=1', { replace: true });
    } catch (err) {
      setDeleteError(describeError(err, t));
    }
  };

  return (
    <>
      <h1>{t('account.title')}</h1>

      <section className="card" aria-labelledby="email-h">
        <h2 id="email-h">{t('account.email')}</h2>
        {user?.email ? (
          <p>
            <span data-testid="account-email">{user.email}</span>{' '}
            {user.email_verified ? (
              <span className="badge badge-ok">{t('account.verified')}</span>
            ) : (
              <span className="badge badge-warn">{t('account.notVerified')}</span>
            )}
          </p>
        ) : (
          <p>{t('account.noEmail')}</p>
        )}
        {user?.email && !user.email_verified && (
          <button type="button" className="secondary" onClick={() => void resend()}>
            {t('account.resend')}
          </button>
        )}
        {shown('email')}
      </section>

      <ReferralCard />

      {hasPassword && (
        <form className="card" aria-labelledby="password-h" onSubmit={changePassword}>
          <h2 id="password-h">{t('account.changePassword')}</h2>
          <input
            type="text"
            name="username"
            autoComplete="username"
            aria-label={t('account.email')}
            value={user?.email ?? ''}
            readOnly
            hidden
          />
          <label htmlFor="pw-current">{t('account.currentPassword')}</label>
          <input
            id="pw-current"
            type="password"
            autoComplete="current-password"
            required
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
          <label htmlFor="pw-new">{t('account.newPassword')}</label>
          <input
            id="pw-new"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            value={next}
            onChange={(e) => setNext(e.target.value)}
          />
          <p className="hint">{t('account.passwordHint')}</p>
          <button type="submit" disabled={!current || next.length < 8}>
            {t('account.changePasswordButton')}
          </button>
          {shown('password')}
        </form>
      )}

      <section className="card" aria-labelledby="sessions-h">
        <h2 id="sessions-h">{t('account.sessions')}</h2>
        {shown('sessions')}
        {sessions && (
          <div className="table-wrap" tabIndex={0} role="region" aria-labelledby="sessions-h">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('account.device')}</th>
                  <th scope="col">{t('account.signedIn')}</th>
                  <th scope="col">{t('account.lastActive')}</th>
                  <th scope="col">{t('keys.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {sessions.map((s) => (
                  <tr key={s.id} data-testid="session-row" data-current={s.current}>
                    <td>
                      {deviceName(s.user_agent, t)} {s.current && <span className="badge badge-ok">{t('account.thisDevice')}</span>}
                    </td>
                    <td>{formatDateTime(s.created_at, lang)}</td>
                    <td>{formatDateTime(s.last_used_at, lang)}</td>
                    <td className="actions">
                      {!s.current && (
                        <button
                          type="button"
                          className="secondary"
                          aria-label={`${t('account.revoke')}: ${deviceName(s.user_agent, t)}, ${formatDateTime(s.created_at, lang)}`}
                          onClick={() => void revoke(s)}
                        >
                          {t('account.revoke')}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section className="card danger-zone" aria-labelledby="delete-h">
        <h2 id="delete-h">{t('account.delete')}</h2>
        <p>{t('account.deleteExplain')}</p>
        <button type="button" className="danger" onClick={() => setDeleting(true)}>
          {t('account.deleteButton')}
        </button>
      </section>

      <Dialog
        open={deleting}
        title={t('account.deleteTitle')}
        onClose={() => {
          setDeleting(false);
          setConfirmText('');
          setDeletePassword('');
          setDeleteError(null);
        }}
      >
        <form onSubmit={deleteAccount}>
          <p>{t('account.deleteExplain')}</p>
          {deleteError && <Alert kind="error">{deleteError}</Alert>}
          {hasPassword && (
            <>
              <label htmlFor="del-password">{t('account.currentPassword')}</label>
              <input
                id="del-password"
                type="password"
                autoComplete="current-password"
                required
                value={deletePassword}
                onChange={(e) => setDeletePassword(e.target.value)}
              />
            </>
          )}
          <label htmlFor="del-confirm">{t('account.deleteConfirm', { word: confirmWord })}</label>
          <input id="del-confirm" autoComplete="off" value={confirmText} onChange={(e) => setConfirmText(e.target.value)} />
          <div className="row end">
            <button type="button" className="secondary" onClick={() => setDeleting(false)}>
              {t('keys.cancel')}
            </button>
            <button type="submit" className="danger" disabled={confirmText.trim() !== confirmWord || (hasPassword && !deletePassword)}>
              {t('account.deleteForever')}
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
