import type { Browser, Page } from 'playwright-core';
import { ApiHarness, startApi, type TestAccount } from '../../api/harness';
import { seriousAxeFindings } from './axe';
import { ensureWebBuild, launchBrowser, openDashboard, type WatchedPage } from './browser';

/** What a dashboard test file gets: the service, the browser, and pages it opens (checked for errors after each test). */
export interface DashboardSuite {
  readonly api: ApiHarness;
  readonly browser: Browser;
  /** The service at `localhost` (the page's origin). */
  readonly origin: string;
  /** A fresh browser context on the dashboard; its console errors and failed requests fail the test. */
  open(options?: { phone?: boolean }): Promise<Page>;
  /** Signed in with the account's email and password, on the Overview. */
  signedIn(account: TestAccount, options?: { phone?: boolean }): Promise<Page>;
  /** axe finds nothing critical or serious on the page (the label names the page in a failure). */
  clean(page: Page, label: string): Promise<void>;
}

/**
 * Registers the hooks every Chromium test file repeats: build the dashboard, start the service and the browser,
 * close every opened context after each test (failing it on any error the pages logged), stop both at the end.
 */
export function dashboardSuite(setup: (api: ApiHarness) => Promise<void> = async () => undefined): DashboardSuite {
  const opened: WatchedPage[] = [];
  let api: ApiHarness | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    ensureWebBuild();
    api = await startApi();
    await setup(api);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });
  afterEach(async () => {
    const errors = opened.flatMap((w) => w.errors);
    await Promise.all(opened.splice(0).map((w) => w.context.close()));
    expect(errors).toEqual([]);
  });
  const suite: DashboardSuite = {
    get api() {
      return api!;
    },
    get browser() {
      return browser!;
    },
    get origin() {
      return api!.baseUrl.replace('127.0.0.1', 'localhost');
    },
    async open(options = {}) {
      const watched = await openDashboard(browser!, suite.origin, options);
      opened.push(watched);
      return watched.page;
    },
    async signedIn(account, options = {}) {
      const page = await suite.open(options);
      await page.goto('/sign-in');
      await page.getByLabel('Email or phone').fill(account.email);
      await page.getByLabel('Password').fill(account.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      return page;
    },
    async clean(page, label) {
      expect([label, await seriousAxeFindings(page)]).toEqual([label, []]);
    },
  };
  return suite;
}
