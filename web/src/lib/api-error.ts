/** An /api/v2 error body: `{error, message}` plus extra fields on some codes. */
export interface ApiErrorBody {
  error: string;
  message: string;
  retry_after?: number;
  required_plan?: string;
  field?: string;
  [extra: string]: unknown;
}

/** A failed API call, with its status and body, as the pages see it. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message);
    this.name = 'ApiFailure';
  }
  get code(): string {
    return this.body.error;
  }
}

/** Reads an error answer of either surface (/api/v2 flat, /v1 nested) into the flat shape. */
export function toErrorBody(status: number, body: unknown): ApiErrorBody {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    if (typeof b.error === 'string') return { ...b, error: b.error, message: typeof b.message === 'string' ? b.message : b.error };
    if (b.error && typeof b.error === 'object') {
      const e = b.error as Record<string, unknown>;
      return { error: String(e.code ?? e.type ?? 'error'), message: String(e.message ?? 'Request failed') };
    }
  }
  return { error: status >= 500 ? 'server_error' : 'error', message: `Request failed (HTTP ${status})` };
}

/** Whole minutes to wait, rounded up (a lockout of 14 min 1 s is "15 minutes"). */
export function minutesToWait(retryAfterSeconds: number | undefined): number {
  return Math.max(1, Math.ceil((retryAfterSeconds ?? 60) / 60));
}
