import createClient from 'openapi-fetch';
import { ApiFailure, toErrorBody } from '../lib/api-error';
import type { paths } from './schema';
import { session } from './session';

const NO_RETRY = /^\/api\/v2\/auth\//;

/**
 * fetch with the in-memory access token. A 401 on an authenticated call renews the token once through the refresh
 * cookie and repeats the request; when that fails the session is over (the app shows the sign-in page).
 */
export async function authedFetch(request: Request): Promise<Response> {
  // A request that brings its own credential (the playground trying an API key) is never retried as the session.
  if (request.headers.has('Authorization')) return fetch(request);
  const retry = request.clone();
  const token = session.token;
  if (token) request.headers.set('Authorization', `Bearer ${token}`);
  const res = await fetch(request);
  if (res.status !== 401 || !token || NO_RETRY.test(new URL(request.url).pathname)) return res;
  const renewed = await session.refresh();
  if (!renewed) {
    session.clear();
    return res;
  }
  retry.headers.set('Authorization', `Bearer ${renewed}`);
  return fetch(retry);
}

/** The typed client of /api/v2 and /v1, generated from the service's OpenAPI document. */
export const api = createClient<paths>({ baseUrl: window.location.origin, fetch: authedFetch, credentials: 'same-origin' });

/** The data of an openapi-fetch result, or an ApiFailure carrying the documented error body. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): NonNullable<T> {
  if (result.response.ok) return result.data as NonNullable<T>;
  throw new ApiFailure(result.response.status, toErrorBody(result.response.status, result.error));
}
