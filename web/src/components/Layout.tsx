import type { ReactNode } from 'react';
import { useApp } from '../app-context';
import type { MessageKey } from '../i18n/en';
import { PAGES } from '../pages';
import { Link } from './Link';

export const NAV: { href: string; label: MessageKey }[] = [
  { href: '/', label: 'nav.overview' },
  { href: '/keys', label: 'nav.keys' },
  { href: '/playground', label: 'nav.playground' },
  { href: '/history', label: 'nav.history' },
  { href: '/billing', label: 'nav.billing' },
  { href: '/webhooks', label: 'nav.webhooks' },
  { href: '/settings', label: 'nav.settings' },
];

/** The signed-in frame: a skip link, the navigation (a wrapping bar on phones), and the page. */
export function Layout({ path, children }: { path: string; children: ReactNode }) {
  const { t, user, signOut } = useApp();
  return (
    <>
      <a className="skip" href="#main">{t('app.skip')}</a>
      <header className="topbar">
        <span className="brand">{t('app.name')}</span>
        <nav aria-label={t('nav.menu')}>
          <ul>
            {NAV.filter((item) => item.href in PAGES).map((item) => (
              <li key={item.href}>
                <Link href={item.href} aria-current={path === item.href ? 'page' : undefined}>{t(item.label)}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          {user?.avatar_url && <img className="avatar" src={user.avatar_url} alt="" width={28} height={28} />}
          <span data-testid="user-name">{user?.name}</span>
          <button type="button" className="secondary" onClick={() => void signOut()}>{t('nav.signOut')}</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>{children}</main>
    </>
  );
}
