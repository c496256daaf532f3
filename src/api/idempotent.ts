import type { ParameterizedContext } from 'koa';
import {
  fingerprint,
  IDEMPOTENCY_KEY_PATTERN,
  type IdempotentAttempt,
  type ReplayGenerations,
  type StoredResponse,
} from '../core/generations/idempotency';
import type { ApiServices } from './api-services';
import { authOf } from './middleware/auth';
import { ApiError } from './middleware/errors';

const ATTEMPT = Symbol('idempotentAttempt');

/** The attempt the request runs under its Idempotency-Key, while `idempotentResponse` runs its work (for the core's RequestContext). */
export function idempotentAttemptOf(ctx: ParameterizedContext): IdempotentAttempt | undefined {
  return (ctx.state as { [ATTEMPT]?: IdempotentAttempt })[ATTEMPT];
}

/**
 * Runs `work` under the request's `Idempotency-Key` (if any), on every surface that runs a model: a replay answers the
 * stored response (and says so in `Idempotent-Replayed`) and charges nothing again; the same key with another body is
 * a 422, while the first is still running a 409. `body` is what the fingerprint covers: the validated request, with
 * uploaded files by their digest. The generations the work opens are tied to the key (through the RequestContext
 * built with `idempotentAttemptOf`): when the first attempt failed after opening them, `replay` renders the answer
 * from them, so a retry never runs (and charges) the request twice.
 */
export async function idempotentResponse(
  ctx: ParameterizedContext,
  services: Pick<ApiServices, 'idempotency'>,
  route: string,
  body: unknown,
  work: () => Promise<StoredResponse>,
  replay?: ReplayGenerations,
): Promise<StoredResponse> {
  const key = ctx.get('Idempotency-Key');
  if (!key) return work();
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new ApiError(400, 'validation_error', 'Idempotency-Key must be 1-255 visible ASCII characters', { field: 'Idempotency-Key' });
  }
  const state = ctx.state as { [ATTEMPT]?: IdempotentAttempt };
  const result = await services.idempotency.run(
    authOf(ctx).userId,
    key,
    fingerprint(route, body),
    async (attempt) => {
      state[ATTEMPT] = attempt;
      try {
        return await work();
      } finally {
        delete state[ATTEMPT];
      }
    },
    replay,
  );
  if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
  return result;
}

/** An uploaded file as the idempotency fingerprint covers it: by its content, not its bytes. */
export function fileDigest(field: string, data: Buffer): string {
  return fingerprint(field, data.toString('base64'));
}
