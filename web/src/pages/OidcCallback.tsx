import { useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../api/client';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { Link } from '../components/Link';
import { describeError } from '../lib/describe-error';
import { forgetOidcState, oidcCallbackToken } from '../lib/oidc';

/** Where the identity provider sends the browser back with `#id_token=...`; the token goes to /auth/idp. */
export default function OidcCallback() {
  const { t, signedIn } = useApp();
  // Read once, in the first render: the effect below forgets the state and wipes the token from the address bar.
  const [idToken] = useState(() => oidcCallbackToken(window.location.hash));
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    forgetOidcState();
    window.history.replaceState(null, '', window.location.pathname);
    if (!idToken) return;
    void (async () => {
      try {
        const session = unwrap(await api.POST('/api/v2/auth/idp', { body: { id_token: idToken } }));
        await signedIn(session.access_token);
      } catch (err) {
        setError(describeError(err, t));
      }
    })();
  }, [idToken, signedIn, t]);

  const shownError = idToken ? error : t('signIn.idpFailed');
  return (
    <main id="main" className="auth-card">
      <h1>{t('signIn.google')}</h1>
      {shownError ? <Alert kind="error">{shownError}</Alert> : <p role="status">{t('app.loading')}</p>}
      <p className="links">
        <Link href="/sign-in">{t('forgot.back')}</Link>
      </p>
    </main>
  );
}
