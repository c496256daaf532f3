/** The part of the official Telegram Login Widget script (telegram-widget.js) the sign-in page uses. */
export interface TelegramUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
  auth_date: number;
  hash: string;
}

interface TelegramLogin {
  auth(options: { bot_id: number; request_access?: 'write'; lang?: string }, callback: (user: TelegramUser | false) => void): void;
}

declare global {
  interface Window {
    Telegram?: { Login?: TelegramLogin };
  }
}

let loading: Promise<TelegramLogin> | null = null;

/**
 * Loads the widget script once (from the configured URL, allowed by the page's CSP) and resolves with its
 * `Telegram.Login`. Its popup flow (`Telegram.Login.auth`) needs no inline script and no eval, unlike the
 * `data-onauth` attribute of the embedded button, so it works under a strict CSP.
 */
export function loadTelegramLogin(scriptUrl: string): Promise<TelegramLogin> {
  if (window.Telegram?.Login) return Promise.resolve(window.Telegram.Login);
  loading ??= new Promise<TelegramLogin>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = scriptUrl;
    script.async = true;
    script.onload = () => (window.Telegram?.Login ? resolve(window.Telegram.Login) : reject(new Error('Telegram Login is not available')));
    script.onerror = () => {
      loading = null;
      reject(new Error('The Telegram widget script could not be loaded'));
    };
    document.head.append(script);
  });
  return loading;
}

/** Opens Telegram's sign-in popup; resolves with the signed user data, or null when the user closed it. */
export async function telegramSignIn(scriptUrl: string, botId: number, lang: string): Promise<TelegramUser | null> {
  const login = await loadTelegramLogin(scriptUrl);
  return new Promise((resolve) => login.auth({ bot_id: botId, request_access: 'write', lang }, (user) => resolve(user || null)));
}
