/** The identity-provider sign-in in the browser: OpenID Connect implicit flow for an ID token (`response_type=id_token`). */
const STATE_KEY = 'nb_oidc_state';

export const OIDC_CALLBACK_PATH = '/auth/oidc';

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The provider's authorization URL; the state (anti-CSRF) is kept in this tab's sessionStorage until the callback. */
export function oidcAuthorizationUrl(config: { authorization_url: string; client_id: string }, origin: string): string {
  const state = randomToken();
  sessionStorage.setItem(STATE_KEY, state);
  const url = new URL(config.authorization_url);
  url.searchParams.set('client_id', config.client_id);
  url.searchParams.set('redirect_uri', origin + OIDC_CALLBACK_PATH);
  url.searchParams.set('response_type', 'id_token');
  url.searchParams.set('scope', 'openid email profile');
  url.searchParams.set('nonce', randomToken());
  url.searchParams.set('state', state);
  return url.toString();
}

/** The ID token of the callback's fragment when its state is the one this tab sent, else null. Only reads. */
export function oidcCallbackToken(hash: string): string | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const expected = sessionStorage.getItem(STATE_KEY);
  const token = params.get('id_token');
  return token && expected && params.get('state') === expected ? token : null;
}

/** The state is single-use: forgotten once the callback has been read. */
export function forgetOidcState(): void {
  sessionStorage.removeItem(STATE_KEY);
}
