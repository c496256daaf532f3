import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { useApp } from '../app-context';
import { Alert } from '../components/Alert';
import { Link } from '../components/Link';

type State = 'working' | 'done' | 'failed';

/** The link is single-use, and the page can mount twice while the session resumes: one request per token per page load. */
const verifications = new Map<string, Promise<boolean>>();

function verifyOnce(token: string): Promise<boolean> {
  let verified = verifications.get(token);
  if (!verified) {
    verified = api.POST('/api/v2/auth/verify-email', { body: { token } }).then(
      (res) => res.response.ok,
      () => false,
    );
    verifications.set(token, verified);
  }
  return verified;
}

/** The landing page of the verification link (`/verify-email?token=...`): confirms the token once. */
export default function VerifyEmail({ token }: { token: string | null }) {
  const { t, user } = useApp();
  const [state, setState] = useState<State>(token ? 'working' : 'failed');

  useEffect(() => {
    if (!token) return;
    let live = true;
    void verifyOnce(token).then((ok) => live && setState(ok ? 'done' : 'failed'));
    return () => {
      live = false;
    };
  }, [token]);

  return (
    <main id="main" className="auth-card">
      <h1>{t('verify.title')}</h1>
      {state === 'working' && <p role="status">{t('verify.working')}</p>}
      {state === 'done' && <Alert kind="success">{t('verify.done')}</Alert>}
      {state === 'failed' && <Alert kind="error">{t('verify.failed')}</Alert>}
      <p className="links">
        <Link href={user ? '/' : '/sign-in'}>{t('verify.continue')}</Link>
      </p>
    </main>
  );
}
