import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { MessageKey } from '../i18n/en';

type Page = LazyExoticComponent<ComponentType>;

/** Each page is its own chunk, loaded on first visit: the sign-in page ships none of the signed-in pages' code. */
const page = (load: () => Promise<{ default: ComponentType }>): Page => lazy(load);

/** The signed-in pages by path, in menu order, with their menu label. */
export const PAGES: Record<string, { label: MessageKey; component: Page; adminOnly?: true }> = {
  '/': { label: 'nav.overview', component: page(() => import('./Overview')) },
  '/usage': { label: 'nav.usage', component: page(() => import('./RequestLog')) },
  '/keys': { label: 'nav.keys', component: page(() => import('./Keys')) },
  '/playground': { label: 'nav.playground', component: page(() => import('./Playground')) },
  '/assistants': { label: 'nav.assistants', component: page(() => import('./Assistants')) },
  '/models': { label: 'nav.models', component: page(() => import('./Models')) },
  '/history': { label: 'nav.history', component: page(() => import('./History')) },
  '/billing': { label: 'nav.billing', component: page(() => import('./Billing')) },
  '/webhooks': { label: 'nav.webhooks', component: page(() => import('./Webhooks')) },
  '/account': { label: 'nav.account', component: page(() => import('./Account')) },
  '/settings': { label: 'nav.settings', component: page(() => import('./Settings')) },
  // The operator's console: in the menu, and served, for admins only (the routes refuse everyone else too).
  '/admin': { label: 'nav.admin', component: page(() => import('./Admin')), adminOnly: true },
};

/** The pages anyone may open, signed in or not. */
export const PUBLIC_PAGES = {
  SignIn: lazy(() => import('./SignIn')),
  Register: lazy(() => import('./Register')),
  ForgotPassword: lazy(() => import('./ForgotPassword')),
  ResetPassword: lazy(() => import('./ResetPassword')),
  VerifyEmail: lazy(() => import('./VerifyEmail')),
  OidcCallback: lazy(() => import('./OidcCallback')),
};
