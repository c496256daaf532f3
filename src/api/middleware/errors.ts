import type { Middleware, ParameterizedContext } from 'koa';
import {
  AccountBlockedError,
  AccountLockedError,
  LoginReplayedError,
  SignInThrottledError,
  AccountConflictError,
  InvalidCredentialsError,
  InvalidTokenError,
  NotFoundError,
  PlanTooLowError,
  QuotaExceededError,
  SignInUnavailableError,
} from '../../core/accounts/errors';
import { InsufficientTokensError } from '../../core/billing/errors';
import { ParamError, UnknownModelError } from '../../core/catalog/errors';
import { failureMessage, GenerationFailedError, IdempotencyConflictError, InputError, ProviderUnavailableError } from '../../core/generations/errors';
import { ProviderError } from '../../core/providers/types';
import { RateDecision, RateLimitedError } from '../../core/limits/rate-limiter';
import { UnknownArticleError } from '../../core/payments/checkout';
import { rateLimitHeaders } from './rate-limit-headers';
import { requestLog } from './request-context';

/** An error raised by the transport itself (bad header, bad JSON, unknown route…), with its wire form. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A sign-in endpoint hit too often from one IP address. */
export class IpRateLimitedError extends Error {
  constructor(readonly retryAfter: number) {
    super('Too many attempts from this address; try again later');
    this.name = 'IpRateLimitedError';
  }
}

/** Everything a transport needs to answer an error: status, snake_case code, text, extra body fields, headers. */
export interface ErrorDescription {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export type ErrorMapper = (err: unknown) => ErrorDescription | undefined;

export const NOT_AUTHENTICATED = 'Not authenticated';
export const INVALID_TOKEN = 'Invalid or expired token';

function rateLimited(decision: RateDecision): ErrorDescription {
  return {
    status: 429,
    code: 'rate_limit_exceeded',
    message: 'Rate limit exceeded',
    details: { retry_after: decision.retryAfter, plan: decision.plan, limit_hour: decision.limitHour, limit_day: decision.limitDay },
    headers: { ...rateLimitHeaders(decision), 'Retry-After': String(decision.retryAfter) },
  };
}

const STATUS_CODES: Record<number, [string, string]> = {
  400: ['bad_request', 'Bad request'],
  401: ['not_authenticated', NOT_AUTHENTICATED],
  403: ['forbidden', 'Forbidden'],
  404: ['not_found', 'Not found'],
  405: ['method_not_allowed', 'Method not allowed'],
  406: ['not_acceptable', 'Not acceptable'],
  408: ['request_timeout', 'Request timeout'],
  411: ['length_required', 'Content-Length required'],
  413: ['payload_too_large', 'Request body is too large'],
  415: ['unsupported_media_type', 'Unsupported media type'],
  422: ['unprocessable_entity', 'Unprocessable entity'],
  501: ['not_implemented', 'Not implemented'],
  503: ['service_unavailable', 'Service unavailable'],
};

/** Koa/http-errors style errors (`ctx.throw`, allowedMethods, raw-body): `status` and `expose`. */
function httpError(err: unknown): ErrorDescription | undefined {
  const e = err as { status?: unknown; statusCode?: unknown; expose?: unknown; message?: unknown; headers?: unknown } | null;
  // http-errors always sets a boolean `expose`; other errors with a `status` (say, an upstream's) are not ours.
  if (typeof e?.expose !== 'boolean') return undefined;
  const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : undefined;
  if (!status || status < 400 || status > 599 || status === 500) return undefined;
  const [code, text] = STATUS_CODES[status] ?? [status < 500 ? 'bad_request' : 'server_error', 'Request failed'];
  const message = e.expose && typeof e.message === 'string' && e.message ? e.message : text;
  const headers =
    e.headers && typeof e.headers === 'object'
      ? Object.fromEntries(Object.entries(e.headers as Record<string, unknown>).map(([k, v]) => [k, String(v)]))
      : undefined;
  return { status, code, message, headers };
}

// The one place where domain errors become HTTP statuses. First match wins.
const MAPPERS: ErrorMapper[] = [
  (err) => (err instanceof ApiError ? { status: err.status, code: err.code, message: err.message, details: err.details, headers: err.headers } : undefined),
  (err) => (err instanceof RateLimitedError ? rateLimited(err.decision) : undefined),
  (err) =>
    err instanceof IpRateLimitedError
      ? {
          status: 429,
          code: 'rate_limit_exceeded',
          message: err.message,
          details: { retry_after: err.retryAfter },
          headers: { 'Retry-After': String(err.retryAfter) },
        }
      : undefined,
  (err) =>
    err instanceof InsufficientTokensError
      ? { status: 402, code: 'insufficient_tokens', message: err.message, details: { required: err.required, available: err.available } }
      : undefined,
  (err) =>
    err instanceof PlanTooLowError
      ? { status: 403, code: 'insufficient_plan', message: err.message, details: { required_plan: err.requiredPlan } }
      : undefined,
  (err) => (err instanceof AccountBlockedError ? { status: 403, code: 'account_blocked', message: err.message } : undefined),
  (err) =>
    err instanceof AccountLockedError || err instanceof SignInThrottledError
      ? {
          status: 429,
          code: err.code,
          message: err.message,
          details: { retry_after: err.retryAfterSeconds },
          headers: { 'Retry-After': String(err.retryAfterSeconds) },
        }
      : undefined,
  (err) => (err instanceof LoginReplayedError ? { status: 401, code: err.code, message: err.message } : undefined),
  (err) =>
    err instanceof InvalidTokenError
      ? err.kind === 'reset'
        ? { status: 400, code: 'invalid_reset_token', message: err.message }
        : err.kind === 'verification'
          ? { status: 400, code: 'invalid_verification_token', message: err.message }
          : { status: 401, code: 'invalid_token', message: err.message }
      : undefined,
  (err) => (err instanceof InvalidCredentialsError ? { status: 401, code: 'invalid_credentials', message: err.message } : undefined),
  (err) => (err instanceof SignInUnavailableError ? { status: 503, code: 'sign_in_unavailable', message: err.message } : undefined),
  (err) =>
    err instanceof AccountConflictError
      ? { status: 409, code: 'account_exists', message: err.message, details: { field: err.field } }
      : undefined,
  (err) =>
    err instanceof QuotaExceededError ? { status: 409, code: 'quota_exceeded', message: err.message, details: { limit: err.limit } } : undefined,
  (err) => (err instanceof NotFoundError ? { status: 404, code: 'not_found', message: err.message } : undefined),
  (err) =>
    err instanceof UnknownModelError ? { status: 404, code: 'model_not_found', message: err.message, details: { model: err.slug } } : undefined,
  (err) => (err instanceof ParamError ? { status: 400, code: 'validation_error', message: err.message, details: { field: err.field } } : undefined),
  (err) => (err instanceof UnknownArticleError ? { status: 400, code: 'unknown_article', message: err.message, details: { field: 'article_id' } } : undefined),
  (err) =>
    err instanceof InputError ? { status: err.status, code: 'invalid_input', message: err.message, details: { field: err.field } } : undefined,
  (err) =>
    err instanceof IdempotencyConflictError
      ? err.reason === 'in_progress'
        ? { status: 409, code: 'idempotency_conflict', message: err.message }
        : { status: 422, code: 'idempotency_key_reused', message: err.message }
      : undefined,
  (err) =>
    err instanceof ProviderUnavailableError
      ? {
          status: 503,
          code: 'model_unavailable',
          message: err.message,
          details: { model: err.modelSlug },
          headers: err.retryAfterSeconds ? { 'Retry-After': String(err.retryAfterSeconds) } : {},
        }
      : undefined,
  (err) => {
    if (!(err instanceof GenerationFailedError)) return undefined;
    const status = err.kind === 'content_policy' ? 422 : err.kind === 'overloaded' ? 503 : err.kind === 'timeout' ? 504 : 502;
    return { status, code: 'generation_failed', message: err.message, details: { generation_id: err.generationId, reason: err.kind } };
  },
  (err) => {
    // A vendor failure during a synchronous call (chat): nothing was charged; the vendor's own text stays in the log.
    if (!(err instanceof ProviderError)) return undefined;
    const status = err.kind === 'overloaded' ? 503 : err.kind === 'timeout' ? 504 : err.kind === 'content_policy' ? 400 : 502;
    const code = err.kind === 'overloaded' ? 'model_overloaded' : err.kind === 'content_policy' ? 'content_policy_violation' : `upstream_${err.kind}`;
    return { status, code, message: failureMessage(err.kind, err.provider), details: { provider: err.provider } };
  },
  httpError,
];

/** Adds a mapping for another error type (checked before the built-in ones). */
export function registerErrorMapping(mapper: ErrorMapper): void {
  MAPPERS.unshift(mapper);
}

/** Status, code and text for any thrown value; unknown errors are a 500 whose details stay in the log. */
export function describeError(err: unknown): ErrorDescription {
  for (const map of MAPPERS) {
    const d = map(err);
    if (d) return d;
  }
  return { status: 500, code: 'internal_error', message: 'Internal server error' };
}

/** `/api/v2` error body: `{"error": "<code>", "message": "<text>", ...details}`. */
export function v2ErrorBody(d: ErrorDescription): Record<string, unknown> {
  return { error: d.code, message: d.message, ...d.details };
}

const V1_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_quota',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
};

/** `/v1` error body in the chat-completions shape, so SDK clients parse it. */
export function v1ErrorBody(d: ErrorDescription): { error: Record<string, unknown> } {
  const type = V1_TYPES[d.status] ?? (d.status >= 500 ? 'server_error' : 'invalid_request_error');
  const param = typeof d.details?.field === 'string' ? d.details.field : null;
  return { error: { message: d.message, type, param, code: d.code } };
}

/** Answers an error on `ctx` in the shape of the surface the request went to. */
export function renderError(ctx: ParameterizedContext, err: unknown): void {
  const d = describeError(err);
  if (d.status >= 500) requestLog(ctx).error({ err }, 'request failed');
  ctx.status = d.status;
  for (const [name, value] of Object.entries(d.headers ?? {})) ctx.set(name, value);
  ctx.body = ctx.path === '/v1' || ctx.path.startsWith('/v1/') ? v1ErrorBody(d) : v2ErrorBody(d);
}

/** Catches everything thrown downstream and renders it (never a bare 500 for bad input). */
export function errorHandler(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (ctx.headerSent || !ctx.writable) {
        requestLog(ctx).warn({ err }, 'error after the response started');
        return;
      }
      renderError(ctx, err);
    }
  };
}
