import type { ParameterizedContext } from 'koa';

export const REFRESH_COOKIE = 'nb_refresh';
/** Sent only to the auth endpoints that use it (refresh, logout). */
export const REFRESH_COOKIE_PATH = '/api/v2/auth';

// Written by hand: Koa's cookie helper refuses `Secure` on plain-HTTP hops (TLS ends at the proxy), and
// browsers treat http://localhost as secure anyway.
function serialize(value: string, maxAgeSeconds: number, expires: Date): string {
  return [
    `${REFRESH_COOKIE}=${value}`,
    `Path=${REFRESH_COOKIE_PATH}`,
    `Max-Age=${maxAgeSeconds}`,
    `Expires=${expires.toUTCString()}`,
    'HttpOnly',
    'Secure',
    'SameSite=Lax',
  ].join('; ');
}

export function setRefreshCookie(ctx: ParameterizedContext, token: string, expiresAt: Date): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  ctx.append('Set-Cookie', serialize(token, maxAge, expiresAt));
}

export function clearRefreshCookie(ctx: ParameterizedContext): void {
  ctx.append('Set-Cookie', serialize('', 0, new Date(0)));
}

export function readRefreshCookie(ctx: ParameterizedContext): string | undefined {
  const header = ctx.get('Cookie');
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === REFRESH_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}
