import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { Link } from '../components/Link';
import { describeError } from '../lib/describe-error';

export default function Register() {
  const { t, signedIn } = useApp();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const session = unwrap(
        await api.POST('/api/v2/auth/register', { body: { email: email.trim(), password, ...(name.trim() ? { name: name.trim() } : {}) } }),
      );
      await signedIn(session.access_token);
    } catch (err) {
      setError(describeError(err, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="auth-card">
      <h1>{t('register.title')}</h1>
      {error && <Alert kind="error">{error}</Alert>}
      <form onSubmit={submit}>
        <label htmlFor="reg-name">{t('register.name')}</label>
        <input id="reg-name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="reg-email">{t('register.email')}</label>
        <input id="reg-email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <label htmlFor="reg-password">{t('register.password')}</label>
        <input
          id="reg-password"
          type="password"
          autoComplete="new-password"
          minLength={8}
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <button type="submit" disabled={busy}>
          {t('register.submit')}
        </button>
      </form>
      <p className="links">
        <Link href="/sign-in">{t('register.haveAccount')}</Link>
      </p>
    </main>
  );
}
