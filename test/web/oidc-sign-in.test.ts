/**
 * "Sign in with Google" in real headless Chromium: the dashboard sends the browser to the identity provider's
 * authorization URL with a state, and the provider's answer comes back to /auth/oidc with an ID token in the
 * fragment. The provider is a local JWKS (test/support/oidc-provider.ts); its authorization page is played by a
 * route in the browser that redirects back at once, as the provider would after the user agreed.
 */
import type { Browser, Page } from 'playwright-core';
import { ApiHarness, startApi } from '../api/harness';
import { startOidcProvider, type OidcProvider } from '../support/oidc-provider';
import { ensureWebBuild, launchBrowser, openDashboard, type WatchedPage } from './support/browser';

jest.setTimeout(90_000);

const AUTHORIZATION_URL = 'https://idp.test/o/oauth2/auth';

let idp: OidcProvider;
let api: ApiHarness;
let browser: Browser;
let origin: string;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  ensureWebBuild();
  idp = await startOidcProvider();
  api = await startApi({ ...idp.env, OIDC_AUTHORIZATION_URL: AUTHORIZATION_URL });
  origin = api.baseUrl.replace('127.0.0.1', 'localhost');
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await idp?.close();
});

afterEach(async () => {
  const errors = opened.flatMap((w) => w.errors);
  await Promise.all(opened.splice(0).map((w) => w.context.close()));
  expect(errors).toEqual([]);
});

/** A page whose identity provider answers every authorization request with `answer(state)` as the fragment. */
async function withProvider(answer: (state: string) => Promise<string>): Promise<{ page: Page; requests: URL[] }> {
  const watched = await openDashboard(browser, origin);
  opened.push(watched);
  const requests: URL[] = [];
  await watched.context.route(`${AUTHORIZATION_URL}**`, async (route) => {
    const url = new URL(route.request().url());
    requests.push(url);
    const fragment = await answer(url.searchParams.get('state') ?? '');
    await route.fulfill({ status: 302, headers: { Location: `${url.searchParams.get('redirect_uri')}#${fragment}` } });
  });
  return { page: watched.page, requests };
}

test('the ID token from the provider signs in; the token and the state are gone afterwards', async () => {
  const email = `oidc-${Date.now()}@example.com`;
  const { page, requests } = await withProvider(async (state) => {
    const token = await idp.idToken({ claims: { email, name: 'Ida Provider' } });
    return new URLSearchParams({ id_token: token, state }).toString();
  });
  await page.goto('/sign-in');
  await page.getByRole('link', { name: 'Sign in with Google' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();

  expect(requests).toHaveLength(1);
  expect(requests[0]!.searchParams.get('client_id')).toBe(idp.clientId);
  expect(requests[0]!.searchParams.get('response_type')).toBe('id_token');
  expect(requests[0]!.searchParams.get('redirect_uri')).toBe(`${origin}/auth/oidc`);
  expect(await page.getByTestId('user-name').innerText()).toBe('Ida Provider');
  expect(new URL(page.url()).hash).toBe('');
  expect(await page.evaluate<string | null>(`sessionStorage.getItem('nb_oidc_state')`)).toBeNull();
});

test('an answer with another state is refused in words, and nothing is posted', async () => {
  const { page } = await withProvider(async () => {
    const token = await idp.idToken({ claims: { email: `forged-${Date.now()}@example.com` } });
    return new URLSearchParams({ id_token: token, state: 'not-the-one-sent' }).toString();
  });
  const posted: string[] = [];
  page.on('request', (req) => {
    if (req.url().endsWith('/api/v2/auth/idp')) posted.push(req.url());
  });
  await page.goto('/sign-in');
  await page.getByRole('link', { name: 'Sign in with Google' }).click();
  await page.getByRole('alert').filter({ hasText: 'Sign-in with the identity provider did not complete.' }).waitFor();
  expect(new URL(page.url()).hash).toBe('');
  expect(posted).toEqual([]);
});
