import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { Link } from '../components/Link';
import { describeError } from '../lib/describe-error';

export default function ForgotPassword() {
  const { t } = useApp();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      unwrap(await api.POST('/api/v2/auth/forgot-password', { body: { email: email.trim() } }));
      setSent(true);
    } catch (err) {
      setError(describeError(err, t));
    }
  };

  return (
    <main id="main" className="auth-card">
      <h1>{t('forgot.title')}</h1>
      {error && <Alert kind="error">{error}</Alert>}
      {sent ? (
        <Alert kind="success">{t('forgot.sent')}</Alert>
      ) : (
        <form onSubmit={submit}>
          <label htmlFor="forgot-email">{t('forgot.email')}</label>
          <input id="forgot-email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <button type="submit">{t('forgot.submit')}</button>
        </form>
      )}
      <p className="links">
        <Link href="/sign-in">{t('forgot.back')}</Link>
      </p>
    </main>
  );
}
