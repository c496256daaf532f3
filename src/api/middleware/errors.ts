import type { Middleware, ParameterizedContext } from 'koa';
import { ErrorTable, hasErrorCode, renderByCode } from '../../core/error-registry';
import { failureMessage } from '../../core/generations/errors';
import { RateDecision } from '../../core/limits/rate-limiter';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../../core/ops/availability';
import { ProviderError } from '../../core/providers/types';
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

/** A sign-in endpoint hit too often from one IP address (or, with its own message, for one email address). */
export class IpRateLimitedError extends ApiError {
  constructor(
    readonly retryAfter: number,
    message = 'Too many attempts from this address; try again later',
  ) {
    super(
      429,
      'rate_limit_exceeded',
      message,
      { retry_after: retryAfter },
      {
        'Retry-After': String(retryAfter),
      },
    );
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

type Rendering = Omit<ErrorDescription, 'code' | 'message'> & { code?: string; message?: string };

const INPUT_STATUS = { invalid: 400, too_large: 413, unusable: 422 } as const;
/**
 * The status of a vendor failure, whether it ends a generation or a synchronous call; anything not listed is 502.
 * A refused prompt is the client's request refused, as OpenAI answers it: 400.
 */
const VENDOR_FAILURE_STATUS: Partial<Record<string, number>> = {
  content_policy: 400,
  overloaded: 503,
  rate_limited: 503,
  quota: 503,
  timeout: 504,
};

// A vendor failure during a synchronous call (chat): nothing was charged; the vendor's own text stays in the log.
const providerFailure = (err: ProviderError): Rendering => ({
  status: VENDOR_FAILURE_STATUS[err.kind] ?? 502,
  message: failureMessage(err.kind, err.provider),
  details: { provider: err.provider },
});

/** Never shown to a client as such: a core failure that reaching the door means a fault on our side. */
const internal = (): Rendering => ({ status: 500, code: 'internal_error', message: 'Internal server error' });

/**
 * The one place where core error codes become HTTP statuses and bodies. The wire code is the error's own code
 * unless the rendering names another; `details` are the extra body fields.
 */
const API_ERRORS: ErrorTable<Rendering> = {
  rate_limit_exceeded: (err) => rateLimited(err.decision),
  rate_counters_unavailable: () => ({ status: 503, headers: { 'Retry-After': '1' } }),
  insufficient_tokens: (err) => ({ status: 402, details: { required: err.required, available: err.available } }),
  insufficient_plan: (err) => ({ status: 403, details: { required_plan: err.requiredPlan } }),
  key_budget_exceeded: (err) => ({ status: 402, details: { required: err.required, remaining: err.remaining } }),
  model_not_allowed: (err) => ({ status: 403, details: { model: err.model } }),
  key_restricted: (err) => ({ status: 403, details: err.limits.length > 0 ? { limits: err.limits } : undefined }),
  account_blocked: () => ({ status: 403 }),
  admin_required: () => ({ status: 403 }),
  cannot_block_self: () => ({ status: 409 }),
  broadcast_finished: () => ({ status: 409 }),
  invalid_token: () => ({ status: 401 }),
  invalid_reset_token: () => ({ status: 400 }),
  invalid_verification_token: () => ({ status: 400 }),
  account_locked: (err) => ({
    status: 429,
    details: { retry_after: err.retryAfterSeconds },
    headers: { 'Retry-After': String(err.retryAfterSeconds) },
  }),
  login_replayed: () => ({ status: 401 }),
  invalid_credentials: () => ({ status: 401 }),
  sign_in_unavailable: () => ({ status: 503 }),
  account_exists: (err) => ({ status: 409, details: { field: err.field } }),
  quota_exceeded: (err) => ({ status: 409, details: { limit: err.limit } }),
  not_found: () => ({ status: 404 }),
  range_not_satisfiable: (err) => ({
    status: 416,
    message: 'The requested range is outside the file',
    headers: { 'Content-Range': `bytes */${err.size}` },
  }),
  invalid_storage_key: () => ({ status: 404, code: 'not_found', message: 'File not found' }),
  model_not_found: (err) => ({ status: 404, details: { model: err.slug } }),
  model_retired: (err) => ({ status: 410, details: { shutdown_at: err.shutdownAt } }),
  validation_error: (err) => ({ status: 400, details: { field: err.field } }),
  invalid_size: (err) => ({ status: 400, code: 'validation_error', details: { field: 'size' }, message: err.message }),
  unknown_article: (err) => ({ status: 400, details: { field: err.details.field } }),
  order_not_found: () => ({ status: 404 }),
  unknown_charge: () => ({ status: 404 }),
  order_not_refundable: (err) => ({ status: 409, details: { status: err.status } }),
  invalid_notification: () => ({ status: 400 }),
  unknown_payment: () => ({ status: 400 }),
  payments_unavailable: () => ({ status: 503 }),
  receipt_contact_required: () => ({ status: 400 }),
  stars_unavailable: () => ({ status: 503 }),
  telegram_account_required: () => ({ status: 409 }),
  payment_provider_unavailable: () => ({ status: 503, headers: { 'Retry-After': '30' } }),
  payment_provider_rejected: () => ({ status: 502 }),
  invalid_input: (err) => ({ status: INPUT_STATUS[err.reason], details: { field: err.field } }),
  unsafe_url: () => ({ status: 400, code: 'invalid_input' }),
  fetch_failed: () => ({ status: 422, code: 'invalid_input' }),
  image_rejected: (err) => ({ status: err.reason === 'too_large' ? 413 : 422, code: 'invalid_input' }),
  document_too_large: (err) => ({ status: 413, details: { limit: err.limit, max: err.max } }),
  document_unreadable: (err) => ({ status: err.reason === 'type' ? 415 : 422, details: { reason: err.reason } }),
  // nginx's "client closed request": only the request log sees it, the client is gone.
  client_closed_request: () => ({ status: 499 }),
  idempotency_conflict: () => ({ status: 409 }),
  generation_pending: () => ({ status: 409 }),
  idempotency_key_reused: () => ({ status: 422 }),
  model_unavailable: (err) => ({
    status: 503,
    details: { model: err.modelSlug },
    headers: err.retryAfterSeconds ? { 'Retry-After': String(err.retryAfterSeconds) } : undefined,
  }),
  generation_failed: (err) => ({
    status: VENDOR_FAILURE_STATUS[err.kind] ?? 502,
    details: { generation_id: err.generationId, reason: err.kind },
  }),
  model_overloaded: providerFailure,
  model_rate_limited: providerFailure,
  provider_quota_exhausted: providerFailure,
  upstream_timeout: providerFailure,
  content_policy_violation: providerFailure,
  upstream_bad_request: providerFailure,
  upstream_auth: providerFailure,
  upstream_error: providerFailure,
  mail_failed: internal,
  invalid_url: (err) => ({ status: 400, details: err.details }),
  https_required: (err) => ({ status: 400, details: err.details }),
  forbidden_address: (err) => ({ status: 400, details: err.details }),
  unknown_event: (err) => ({ status: 400, details: err.details }),
  webhook_limit_reached: (err) => ({ status: 400, details: err.details }),
  response_not_found: () => ({ status: 404 }),
  response_not_cancellable: () => ({ status: 400 }),
  promo_not_found: () => ({ status: 404 }),
  // Gone for good: an expired code never works again (unlike a 409, nothing the caller can change).
  promo_expired: (err) => ({ status: 410, details: { expires_at: err.expiresAt.toISOString() } }),
  promo_exhausted: () => ({ status: 409 }),
  promo_already_redeemed: () => ({ status: 409 }),
  promo_code_taken: () => ({ status: 409, details: { field: 'code' } }),
};

/** The codes the API door renders, for the test that walks every core error. */
export function apiRendersCode(code: string): boolean {
  return Object.hasOwn(API_ERRORS, code);
}

/** A driver error saying the database is away (not a domain failure): 503 with a retry hint. */
function databaseUnavailable(err: unknown): ErrorDescription | undefined {
  if (!isDatabaseUnavailable(err)) return undefined;
  return {
    status: 503,
    code: 'service_unavailable',
    message: 'The service is temporarily unavailable; retry shortly',
    headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  };
}

function describeDomainError(err: unknown): ErrorDescription | undefined {
  const r = renderByCode(API_ERRORS, err);
  if (!r) return undefined;
  const e = err as Error & { code: string };
  return { ...r, code: r.code ?? e.code, message: r.message ?? e.message };
}

/** Status, code and text for any thrown value; unknown errors are a 500 whose details stay in the log. */
export function describeError(err: unknown): ErrorDescription {
  if (err instanceof ApiError)
    return { status: err.status, code: err.code, message: err.message, details: err.details, headers: err.headers };
  return (
    describeDomainError(err) ??
    databaseUnavailable(err) ??
    httpError(err) ?? { status: 500, code: 'internal_error', message: 'Internal server error' }
  );
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

// Anthropic's documented error types by status (402 is its billing_error; 503, our overload answer, is its 529's).
const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
};

/** The Messages API's error body, `{"type":"error","error":{"type","message"}}`, so the Anthropic SDKs parse it. */
export function anthropicErrorBody(d: ErrorDescription): { type: 'error'; error: { type: string; message: string } } {
  const type = ANTHROPIC_TYPES[d.status] ?? (d.status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message: d.message } };
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

function errorBody(path: string, d: ErrorDescription): Record<string, unknown> {
  if (under(path, '/v1/messages')) return anthropicErrorBody(d);
  return under(path, '/v1') ? v1ErrorBody(d) : v2ErrorBody(d);
}

/** Answers an error on `ctx` in the shape of the surface the request went to. @returns what was answered */
export function renderError(ctx: ParameterizedContext, err: unknown): ErrorDescription {
  const d = describeError(err);
  if (d.status >= 500 && d.code !== 'service_unavailable') requestLog(ctx).error({ err }, 'request failed');
  else if (d.code === 'service_unavailable')
    requestLog(ctx).warn({ err: (err as Error).message }, 'request refused: a dependency is unavailable');
  ctx.status = d.status;
  for (const [name, value] of Object.entries(d.headers ?? {})) ctx.set(name, value);
  ctx.body = errorBody(ctx.path, d);
  return d;
}

/**
 * Catches everything thrown downstream and renders it (never a bare 500 for bad input); `onAnswered` hears of
 * each error answered (the request log records the refusals).
 */
export function errorHandler(onAnswered?: (ctx: ParameterizedContext, d: ErrorDescription) => void): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (ctx.headerSent || !ctx.writable) {
        if (hasErrorCode(err, 'client_closed_request')) ctx.status = 499;
        else requestLog(ctx).warn({ err }, 'error after the response started');
        return;
      }
      const answered = renderError(ctx, err);
      onAnswered?.(ctx, answered);
    }
  };
}
