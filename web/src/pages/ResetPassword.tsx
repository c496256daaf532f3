import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { Link } from '../components/Link';
import { ApiFailure } from '../lib/api-error';
import { describeError } from '../lib/describe-error';

/** The page of the password-reset link (`/reset-password?token=...`). */
export default function ResetPassword({ token }: { token: string | null }) {
  const { t } = useApp();
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(token ? null : t('reset.missing'));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!token) return;
    setError(null);
    try {
      unwrap(await api.POST('/api/v2/auth/reset-password', { body: { token, password } }));
      setDone(true);
    } catch (err) {
      setError(err instanceof ApiFailure && err.code === 'invalid_reset_token' ? t('reset.invalid') : describeError(err, t));
    }
  };

  return (
    <main id="main" className="auth-card">
      <h1>{t('reset.title')}</h1>
      {error && <Alert kind="error">{error}</Alert>}
      {done ? (
        <Alert kind="success">{t('reset.done')}</Alert>
      ) : (
        token && (
          <form onSubmit={submit}>
            <label htmlFor="reset-password">{t('reset.password')}</label>
            <input
              id="reset-password"
              type="password"
              autoComplete="new-password"
              minLength={8}
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
            <button type="submit">{t('reset.submit')}</button>
          </form>
        )
      )}
      <p className="links">
        <Link href="/sign-in">{t('forgot.back')}</Link>
      </p>
    </main>
  );
}
