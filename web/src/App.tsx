import { Suspense, useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, unwrap } from './api/client';
import { session } from './api/session';
import { AppContext, type AppState, type PublicConfig, type User } from './app-context';
import { Layout } from './components/Layout';
import { loadLanguage } from './i18n/languages';
import { isLang, translate } from './i18n/translate';
import type { Lang } from './lib/format';
import { OIDC_CALLBACK_PATH } from './lib/oidc';
import { startTelegramWebApp, type TelegramWebApp } from './lib/telegram-webapp';
import { navigate, useLocation } from './lib/router';
import { PAGES, PUBLIC_PAGES } from './pages';

const { ForgotPassword, OidcCallback, Register, ResetPassword, SignIn, VerifyEmail } = PUBLIC_PAGES;

const PUBLIC_ONLY = new Set(['/sign-in', '/register', '/forgot-password']);

function browserLang(): Lang {
  return navigator.language.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

export function App() {
  const { path, query } = useLocation();
  const [booted, setBooted] = useState(false);
  const [user, setUser] = useState<User | null>(null);
  const [config, setConfig] = useState<PublicConfig | null>(null);
  const [lang, setLangState] = useState<Lang>(browserLang);
  const [telegram, setTelegram] = useState<TelegramWebApp | null>(null);
  const [telegramSignInError, setTelegramSignInError] = useState<unknown>(null);

  const setLang = useCallback((next: Lang) => {
    void loadLanguage(next).then(() => {
      setLangState(next);
      document.documentElement.lang = next;
    });
  }, []);

  const loadAccount = useCallback(async () => {
    const [me, settings] = await Promise.all([api.GET('/api/v2/user/me'), api.GET('/api/v2/user/settings')]);
    setUser(unwrap(me));
    const language = unwrap(settings).language;
    if (isLang(language)) {
      await loadLanguage(language).catch(() => undefined);
      setLang(language);
    }
  }, [setLang]);

  // Start: the public configuration, and the session: inside Telegram the account of Telegram's initData, else the
  // one kept by the refresh cookie (a reload stays signed in).
  useEffect(() => {
    void (async () => {
      await loadLanguage(browserLang()).catch(() => undefined);
      const cfg = api.GET('/api/v2/config/public').then(
        (r) => (r.response.ok ? (r.data ?? null) : null),
        () => null,
      );
      const miniApp = await startTelegramWebApp();
      setTelegram(miniApp);
      if (miniApp) {
        try {
          const signIn = await api.POST('/api/v2/auth/telegram-webapp', { body: { init_data: miniApp.initData } });
          session.set(unwrap(signIn).access_token);
          await loadAccount();
        } catch (err) {
          session.clear();
          setTelegramSignInError(err);
        }
      } else if (session.mayResume && (await session.refresh())) await loadAccount().catch(() => session.clear());
      setConfig(await cfg);
      setBooted(true);
    })();
  }, [loadAccount]);

  // A session that ends (sign-out, a refresh refused) brings back the sign-in page.
  useEffect(() => session.subscribe((token) => token === null && setUser(null)), []);

  const state = useMemo<AppState>(
    () => ({
      lang,
      t: (key, vars) => translate(lang, key, vars),
      user,
      config,
      telegram,
      telegramSignInError,
      setLang,
      reloadUser: loadAccount,
      async signedIn(accessToken) {
        session.set(accessToken);
        await loadAccount();
        const next = new URLSearchParams(window.location.search).get('next');
        navigate(next && next.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
      },
      async signOut() {
        await fetch('/api/v2/auth/logout', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'Content-Type': 'application/json', ...(session.token ? { Authorization: `Bearer ${session.token}` } : {}) },
          body: '{}',
        }).catch(() => undefined);
        session.clear();
        navigate('/sign-in', { replace: true });
      },
    }),
    [lang, user, config, telegram, telegramSignInError, setLang, loadAccount],
  );

  useEffect(() => {
    document.title = `${translate(lang, 'app.name')}`;
  }, [lang]);

  let page: ReactNode;
  if (!booted) page = <Loading lang={lang} />;
  else if (path === '/reset-password') page = <ResetPassword token={query.get('token')} />;
  else if (path === '/verify-email') page = <VerifyEmail token={query.get('token')} />;
  else if (path === OIDC_CALLBACK_PATH) page = <OidcCallback />;
  else if (!user) {
    if (!PUBLIC_ONLY.has(path))
      page = <Redirect to={`/sign-in${path !== '/' && path !== '/sign-in' ? `?next=${encodeURIComponent(path)}` : ''}`} />;
    else if (path === '/register') page = <Register />;
    else if (path === '/forgot-password') page = <ForgotPassword />;
    else page = <SignIn />;
  } else if (PUBLIC_ONLY.has(path)) page = <Redirect to="/" />;
  else {
    const entry = PAGES[path];
    const Page = entry && (!entry.adminOnly || user.is_admin) ? entry.component : undefined;
    page = Page ? (
      <Layout path={path}>
        <Suspense fallback={<Loading lang={lang} />}>
          <Page />
        </Suspense>
      </Layout>
    ) : (
      <Redirect to="/" />
    );
  }
  return (
    <AppContext.Provider value={state}>
      <Suspense fallback={<Loading lang={lang} />}>{page}</Suspense>
    </AppContext.Provider>
  );
}

function Loading({ lang }: { lang: Lang }) {
  return (
    <p className="boot" role="status">
      {translate(lang, 'app.loading')}
    </p>
  );
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
