import type { Middleware, ParameterizedContext } from 'koa';
import type { KeyScope } from '../../core/accounts/key-limits';
import type { Plan } from '../../core/accounts/plans';
import type { Actor } from '../../core/generations/service';
import { RateDecision, RateLimitedError } from '../../core/limits/rate-limiter';
import type { UserRecord } from '../../core/records';
import type { ApiServices } from '../api-services';
import { hasErrorCode } from '../../core/error-registry';
import { ApiError, NOT_AUTHENTICATED } from './errors';
import { applyRateLimitHeaders } from './rate-limit-headers';
import { limiterOf } from './request-context';

/** Who is calling; set on `ctx.state.auth` by `authenticate`. */
export interface AuthContext {
  userId: number;
  user: UserRecord;
  plan: Plan;
  via: 'api_key' | 'session';
  /** The API key used (via `api_key`). */
  keyId?: number;
  /** The API key's scope (via `api_key`): its model list; its budget is checked in the token hold. */
  key?: KeyScope;
  /** The sign-in session (refresh family) of a web access token (via `session`). */
  sessionId?: string;
}

const BEARER = /^Bearer[ \t]+([A-Za-z0-9._~+/=-]+)[ \t]*$/i;
const MAX_TOKEN_LENGTH = 4096;

/** The credential of `Authorization: Bearer <token>`, or null when the header is missing or malformed. */
export function bearerToken(ctx: ParameterizedContext): string | null {
  const header = ctx.get('Authorization');
  if (!header || header.length > MAX_TOKEN_LENGTH + 16) return null;
  return BEARER.exec(header)?.[1] ?? null;
}

const API_KEY_HEADER = /^[A-Za-z0-9._~+/=-]+$/;

/** The credential of `x-api-key: <key>` (how the Anthropic SDKs and Claude Code send it), or null. */
function apiKeyHeader(ctx: ParameterizedContext): string | null {
  const value = ctx.get('x-api-key').trim();
  return value && value.length <= MAX_TOKEN_LENGTH && API_KEY_HEADER.test(value) ? value : null;
}

/** The caller of an authenticated route. @throws ApiError 401 when `authenticate` did not run or failed */
export function authOf(ctx: ParameterizedContext): AuthContext {
  const auth = ctx.state.auth as AuthContext | undefined;
  if (!auth) throw new ApiError(401, 'not_authenticated', NOT_AUTHENTICATED);
  return auth;
}

/** The caller as the core's model-running services take it: with the API key's scope, when a key was used. */
export function actorOf(ctx: ParameterizedContext): Actor {
  const auth = authOf(ctx);
  return auth.key ? { user: auth.user, plan: auth.plan, key: auth.key } : { user: auth.user, plan: auth.plan };
}

/**
 * The id of the restricted API key the caller used, or undefined: a restricted key reads only its own usage and
 * generations (an unrestricted key and a web session read the whole account's).
 */
export function ownReadsOf(ctx: ParameterizedContext): number | undefined {
  const { key } = authOf(ctx);
  return key?.restricted ? key.id : undefined;
}

/**
 * `Authorization: Bearer <API key | access token>`. Missing/malformed: 401 `Not authenticated`; wrong, expired,
 * revoked: 401 `Invalid or expired token`; an API key below the VIP plan: 403 naming the plan; blocked: 403.
 * Sets `ctx.state.auth` and the X-RateLimit-* headers (peeked: reads do not count).
 */
export function authenticate(
  services: Pick<ApiServices, 'auth' | 'limiter'>,
  options: { peekLimits?: boolean; /** Also take `x-api-key` when there is no Bearer credential. */ apiKeyHeader?: boolean } = {},
): Middleware {
  const peekLimits = options.peekLimits ?? true;
  return async (ctx, next) => {
    const token = bearerToken(ctx) ?? (options.apiKeyHeader ? apiKeyHeader(ctx) : null);
    if (!token) throw new ApiError(401, 'not_authenticated', NOT_AUTHENTICATED);
    const principal = await services.auth.resolveBearer(token).catch((err: unknown) => {
      // A key refused for its plan: the account still hears of it in its request log (middleware/refusals.ts).
      if (hasErrorCode(err, 'insufficient_plan') && err.account) ctx.state.refusedCaller = err.account;
      throw err;
    });
    const auth: AuthContext = {
      userId: principal.user.id,
      user: principal.user,
      plan: principal.plan,
      via: principal.via,
      ...(principal.key !== undefined ? { keyId: principal.key.id, key: principal.key } : {}),
      ...(principal.sessionId !== undefined ? { sessionId: principal.sessionId } : {}),
    };
    ctx.state.auth = auth;
    if (peekLimits) applyRateLimitHeaders(ctx, await services.limiter.peek(auth.userId, auth.plan));
    await next();
  };
}

/**
 * Counts one model-running request against the caller's hourly and daily limits (shared by the bot, /api/v2
 * and /v1), sets the X-RateLimit-* headers to the new state, and throws RateLimitedError (429) when refused.
 */
export async function consumeRequest(ctx: ParameterizedContext): Promise<RateDecision> {
  const auth = authOf(ctx);
  const decision = await limiterOf(ctx).consume(auth.userId, auth.plan);
  applyRateLimitHeaders(ctx, decision);
  if (!decision.allowed) throw new RateLimitedError(decision);
  return decision;
}

/** `consumeRequest` as route middleware, for routes that count every call. */
export function countRequest(): Middleware {
  return async (ctx, next) => {
    await consumeRequest(ctx);
    await next();
  };
}
