import { useState, type ReactNode } from 'react';
import { useApp } from '../app-context';
import { PAGES } from '../pages';
import { Link } from './Link';

/** The signed-in frame: a skip link, the navigation (behind a menu button on phones), and the page. */
export function Layout({ path, children }: { path: string; children: ReactNode }) {
  const { t, user, signOut, telegram } = useApp();
  const [menuOpen, setMenuOpen] = useState(false);
  // Another page (opened from the menu or by going back) closes the menu, in the same render.
  const [menuPath, setMenuPath] = useState(path);
  if (menuPath !== path) {
    setMenuPath(path);
    setMenuOpen(false);
  }
  return (
    <>
      <a className="skip" href="#main">
        {t('app.skip')}
      </a>
      <header className="topbar">
        <span className="brand">{t('app.name')}</span>
        <button
          type="button"
          className="secondary menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          {t('nav.menuButton')}
        </button>
        <nav
          id="main-nav"
          aria-label={t('nav.menu')}
          className={menuOpen ? 'open' : undefined}
          onClick={(e) => (e.target as HTMLElement).closest('a') && setMenuOpen(false)}
        >
          <ul>
            {Object.entries(PAGES)
              .filter(([, item]) => !item.adminOnly || user?.is_admin)
              .map(([href, item]) => (
                <li key={href}>
                  <Link href={href} aria-current={path === href ? 'page' : undefined}>
                    {t(item.label)}
                  </Link>
                </li>
              ))}
          </ul>
        </nav>
        <div className="who">
          {user?.avatar_url && <img className="avatar" src={user.avatar_url} alt="" width={28} height={28} />}
          <span data-testid="user-name">{user?.name}</span>
          {/* Inside Telegram the account is Telegram's: closing the app is how one leaves. */}
          {!telegram && (
            <button type="button" className="secondary" onClick={() => void signOut()}>
              {t('nav.signOut')}
            </button>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
