/**
 * The dashboard as a Telegram Mini App. Telegram opens it with its launch parameters in the URL fragment
 * (`#tgWebAppData=…&tgWebAppVersion=…`); only then is Telegram's script (telegram-web-app.js, from telegram.org as
 * its docs say) loaded, so a visit from a browser, offline use and the tests never wait on telegram.org.
 */
export const WEB_APP_SCRIPT = 'https://telegram.org/js/telegram-web-app.js?59';
const LOAD_TIMEOUT_MS = 5000;

export type InvoiceStatus = 'paid' | 'cancelled' | 'failed' | 'pending';

/** The part of `window.Telegram.WebApp` the dashboard uses (core.telegram.org/bots/webapps#initializing-mini-apps). */
export interface TelegramWebApp {
  initData: string;
  colorScheme?: 'light' | 'dark';
  themeParams?: Partial<Record<string, string>>;
  ready?(): void;
  expand?(): void;
  openInvoice?(url: string, callback?: (status: InvoiceStatus) => void): void;
  onEvent?(event: string, handler: () => void): void;
}

/** `window.Telegram` as telegram-web-app.js leaves it (the Login Widget's script adds `Login` to the same object). */
const telegramGlobal = () => (window as { Telegram?: { WebApp?: TelegramWebApp } }).Telegram;

function launchedByTelegram(): boolean {
  if (/(^#|&)tgWebApp(Data|Version|Platform)=/.test(window.location.hash)) return true;
  // telegram-web-app.js keeps the launch parameters here, so a reload inside Telegram is still inside Telegram.
  try {
    return sessionStorage.getItem('__telegram__initParams') !== null;
  } catch {
    return false;
  }
}

function loadScript(): Promise<void> {
  return new Promise((resolve) => {
    const script = document.createElement('script');
    script.src = WEB_APP_SCRIPT;
    const done = () => resolve();
    script.onload = done;
    script.onerror = done;
    setTimeout(done, LOAD_TIMEOUT_MS);
    document.head.appendChild(script);
  });
}

let loaded: Promise<TelegramWebApp | null> | null = null;

/** Telegram's Mini App object when the dashboard runs inside Telegram with user data to sign in with, else null. */
export function telegramWebApp(): Promise<TelegramWebApp | null> {
  loaded ??= (async () => {
    if (launchedByTelegram()) await loadScript();
    const app = telegramGlobal()?.WebApp;
    return app && app.initData ? app : null;
  })();
  return loaded;
}

/** Inside Telegram: follows its theme, tells it the app is ready and takes the full height. Null outside. */
export async function startTelegramWebApp(): Promise<TelegramWebApp | null> {
  const app = await telegramWebApp();
  if (!app) return null;
  document.documentElement.classList.add('telegram');
  followTheme(app);
  app.onEvent?.('themeChanged', () => followTheme(app));
  app.ready?.();
  app.expand?.();
  return app;
}

/** Telegram's theme params (core.telegram.org/bots/webapps#themeparams) as the dashboard's colour variables. */
const THEME_VARIABLES: Record<string, string> = {
  bg_color: '--bg',
  secondary_bg_color: '--card',
  text_color: '--fg',
  hint_color: '--muted',
  button_color: '--accent',
  button_text_color: '--accent-fg',
  section_separator_color: '--line',
  destructive_text_color: '--danger',
};

function followTheme(app: TelegramWebApp): void {
  const root = document.documentElement.style;
  for (const [param, variable] of Object.entries(THEME_VARIABLES)) {
    const colour = app.themeParams?.[param];
    if (colour && /^#[0-9a-f]{3,8}$/i.test(colour)) root.setProperty(variable, colour);
  }
  if (app.colorScheme) document.documentElement.style.colorScheme = app.colorScheme;
}

/** Opens a Stars invoice link in Telegram's payment sheet and answers how it ended. */
export function openInvoice(app: TelegramWebApp, link: string): Promise<InvoiceStatus> {
  return new Promise((resolve) => {
    if (!app.openInvoice) resolve('failed');
    else app.openInvoice(link, resolve);
  });
}
