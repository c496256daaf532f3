/** HSTS for a year, sent only when the service is reached over https (PUBLIC_URL). */
const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * A CSP for answers that are not pages (JSON, files): nothing may run or be framed. HTML pages replace it with
 * their own (see api/web/csp.ts: `dashboardCsp`).
 */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/** Headers every answer carries: nosniff, no referrer, a deny-all CSP (pages set theirs), HSTS behind https. */
export function baseSecurityHeaders(publicUrl: string | undefined): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': API_CSP,
    ...(publicUrl?.startsWith('https://') ? { 'Strict-Transport-Security': HSTS } : {}),
  };
}
