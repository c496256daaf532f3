/**
 * The web session: the access token lives only in this module's memory (never in storage), and is renewed through
 * the httpOnly refresh cookie (`POST /api/v2/auth/refresh`), which rotates on every use. Refreshes are single-flight:
 * two at once would present the same refresh token twice, which the server treats as theft and ends the session.
 */
type Listener = (token: string | null) => void;

let accessToken: string | null = null;
/**
 * Whether this browser signed in before (a flag, not a credential): a first visit skips the refresh call, which
 * would only answer 401 without a cookie.
 */
const HINT = 'nb_has_session';
let inflight: Promise<string | null> | null = null;
const listeners = new Set<Listener>();

function publish(): void {
  for (const l of listeners) l(accessToken);
}

export const session = {
  get token(): string | null {
    return accessToken;
  },
  set(token: string): void {
    accessToken = token;
    localStorage.setItem(HINT, '1');
    publish();
  },
  clear(): void {
    accessToken = null;
    localStorage.removeItem(HINT);
    publish();
  },
  /** Whether a refresh cookie may exist (this browser signed in and has not signed out since). */
  get mayResume(): boolean {
    return localStorage.getItem(HINT) === '1';
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /** A new access token from the refresh cookie, or null (no session, expired, revoked). */
  refresh(): Promise<string | null> {
    inflight ??= (async () => {
      try {
        const res = await fetch('/api/v2/auth/refresh', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
        });
        if (!res.ok) {
          accessToken = null;
          localStorage.removeItem(HINT);
          return null;
        }
        const body = (await res.json()) as { access_token: string };
        accessToken = body.access_token;
        return accessToken;
      } catch {
        return accessToken;
      } finally {
        inflight = null;
        publish();
      }
    })();
    return inflight;
  },
};
