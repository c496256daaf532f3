import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { Link } from '../components/Link';
import { ApiFailure } from '../lib/api-error';
import { describeError } from '../lib/describe-error';
import { classifyIdentifier } from '../lib/identifier';
import { oidcAuthorizationUrl } from '../lib/oidc';
import { telegramSignIn } from '../lib/telegram-widget';

/** One "Email or phone" field: the form of the input picks /auth/login or /auth/login-phone. */
export default function SignIn() {
  const { t, lang, config, signedIn, telegram: miniApp, telegramSignInError } = useApp();
  // Inside Telegram the Telegram sign-in already ran (with initData): its widget would only repeat it.
  const widget = miniApp ? undefined : config?.telegram;
  const [identifier, setIdentifier] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const deleted = new URLSearchParams(window.location.search).get('deleted') === '1';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const id = classifyIdentifier(identifier);
    if (id.kind === 'invalid') {
      setError(t('signIn.invalidIdentifier'));
      return;
    }
    setBusy(true);
    try {
      const session =
        id.kind === 'email'
          ? unwrap(await api.POST('/api/v2/auth/login', { body: { email: id.email, password } }))
          : unwrap(await api.POST('/api/v2/auth/login-phone', { body: { phone: id.phone, password } }));
      await signedIn(session.access_token);
    } catch (err) {
      setError(describeError(err, t));
    } finally {
      setBusy(false);
    }
  };

  const telegram = async () => {
    if (!widget) return;
    setError(null);
    try {
      const user = await telegramSignIn(widget.widget_script_url, widget.bot_id, lang);
      if (!user) {
        setError(t('signIn.telegramFailed'));
        return;
      }
      const session = unwrap(await api.POST('/api/v2/auth/messenger', { body: { ...user } }));
      await signedIn(session.access_token);
    } catch (err) {
      setError(describeError(err, t));
    }
  };

  return (
    <main id="main" className="auth-card">
      <header className="product">
        <p className="product-name">{t('app.name')}</p>
        <p className="product-line">{t('signIn.tagline')}</p>
      </header>
      <h1>{t('signIn.title')}</h1>
      {deleted && <Alert kind="success">{t('signIn.accountDeleted')}</Alert>}
      {telegramSignInError !== null && (
        <Alert kind="error">
          {telegramSignInError instanceof ApiFailure && telegramSignInError.status === 401
            ? t('miniapp.refused')
            : describeError(telegramSignInError, t)}
        </Alert>
      )}
      {error && <Alert kind="error">{error}</Alert>}
      <form onSubmit={submit} noValidate>
        <label htmlFor="identifier">{t('signIn.identifier')}</label>
        <input
          id="identifier"
          name="username"
          autoComplete="username"
          inputMode="email"
          required
          value={identifier}
          aria-describedby="identifier-hint"
          onChange={(e) => setIdentifier(e.target.value)}
        />
        <p id="identifier-hint" className="hint">
          {t('signIn.identifierHint')}
        </p>
        <label htmlFor="password">{t('signIn.password')}</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <button type="submit" disabled={busy}>
          {t('signIn.submit')}
        </button>
      </form>
      {(widget || config?.oidc) && <p className="divider">{t('signIn.or')}</p>}
      {widget && (
        <button type="button" className="telegram" onClick={telegram}>
          {t('signIn.telegram')}
        </button>
      )}
      {config?.oidc && (
        <a className="button secondary" href={oidcAuthorizationUrl(config.oidc, window.location.origin)}>
          {t('signIn.google')}
        </a>
      )}
      <p className="links">
        <Link href="/register">{t('signIn.register')}</Link>
        <Link href="/forgot-password">{t('signIn.forgot')}</Link>
      </p>
    </main>
  );
}
