import type { ParameterizedContext } from 'koa';
import { fingerprint, IDEMPOTENCY_KEY_PATTERN, type StoredResponse } from '../core/generations/idempotency';
import type { ApiServices } from './api-services';
import { authOf } from './middleware/auth';
import { ApiError } from './middleware/errors';

/**
 * Runs `work` under the request's `Idempotency-Key` (if any), on every surface that runs a model: a replay answers the
 * stored response (and says so in `Idempotent-Replayed`) and charges nothing again; the same key with another body is
 * a 422, while the first is still running a 409. `body` is what the fingerprint covers: the validated request, with
 * uploaded files by their digest.
 */
export async function idempotentResponse(
  ctx: ParameterizedContext,
  services: Pick<ApiServices, 'idempotency'>,
  route: string,
  body: unknown,
  work: () => Promise<StoredResponse>,
): Promise<StoredResponse> {
  const key = ctx.get('Idempotency-Key');
  if (!key) return work();
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new ApiError(400, 'validation_error', 'Idempotency-Key must be 1-255 visible ASCII characters', { field: 'Idempotency-Key' });
  }
  const result = await services.idempotency.run(authOf(ctx).userId, key, fingerprint(route, body), work);
  if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
  return result;
}

/** An uploaded file as the idempotency fingerprint covers it: by its content, not its bytes. */
export function fileDigest(field: string, data: Buffer): string {
  return fingerprint(field, data.toString('base64'));
}
