import { chatVendorUsage, vendorCostUsd } from '../../catalog/vendor-cost';
import type { Logger } from '../../../logger';
import { Queryable } from '../../billing/queryable';
import { modelOfRecord } from '../../catalog/lifecycle';
import { priceChatUsage } from '../../catalog/pricing';
import { TextModel } from '../../catalog/types';
import { failureMessage } from '../errors';
import { AbandonedLease, GenerationLeases } from './leases';
import { markCompleted, markFailed } from './lifecycle';
import { GenerationQueue } from '../ports';

const CHARS_PER_TOKEN = 4;
/** A stream refreshes its lease every 2 s; one silent for this long belongs to a dead process. */
export const STALE_LEASE_SECONDS = 60;
/**
 * A chat answer whose lease records nothing delivered is left this long (see GenerationLeases.abandoned): after an
 * outage its own instance refreshes the lease and settles it from its outbox within seconds of the database's return.
 */
export const SILENT_LEASE_SECONDS = 600;

/**
 * Resolves generations whose process died: a stream is settled on what it had delivered (or released when it
 * delivered nothing), an inline media call already submitted upstream is handed to the job queue, any other is
 * released. Returns how many were resolved. `own`: this instance's leases, whatever their age (at start).
 */
export async function recoverAbandoned(
  deps: { sql: Queryable; leases: GenerationLeases; queue: GenerationQueue; log: Logger },
  own: boolean,
): Promise<number> {
  const abandoned = await deps.leases.abandoned({ own, staleSeconds: STALE_LEASE_SECONDS, silentSeconds: SILENT_LEASE_SECONDS });
  let resolved = 0;
  for (const lease of abandoned) if (await resolveLease(deps, lease)) resolved += 1;
  if (resolved > 0) deps.log.warn({ resolved, own }, 'generations abandoned by a stopped process were resolved');
  return resolved;
}

/**
 * Before an account is deleted: each of its pending generations is settled as an abandoned one would be (a stream
 * billed on what its lease says it delivered, anything else released), so nothing it was given goes unbilled when
 * its rows go with the account. The answers still running are cut (see AnswersInFlight.cut). @returns how many
 */
export async function settleAccountGenerations(
  deps: { sql: Queryable; leases: GenerationLeases; queue: GenerationQueue; log: Logger },
  userId: number,
): Promise<number> {
  let settled = 0;
  for (const lease of await deps.leases.ofAccount(userId)) if (await resolveLease(deps, lease)) settled += 1;
  if (settled > 0) deps.log.info({ userId, settled }, 'a deleted account’s running generations were settled');
  return settled;
}

async function resolveLease(
  deps: { sql: Queryable; leases: GenerationLeases; queue: GenerationQueue },
  lease: AbandonedLease,
): Promise<boolean> {
  const model = modelOfRecord(lease.modelSlug);
  const elapsed = Date.now() - lease.createdAt.getTime();
  if (lease.category === 'text' && lease.deliveredChars > 0) {
    const usage = { promptTokens: lease.promptTokens, completionTokens: Math.ceil(lease.deliveredChars / CHARS_PER_TOKEN) };
    const vendorUsage = chatVendorUsage(usage);
    const result = {
      resultKey: null,
      resultMime: null,
      resultText: null,
      metadata: { ...usage, recovered: true },
      seed: null,
      durationSeconds: null,
      vendorUsage: { ...vendorUsage },
      vendorCostUsd: vendorCostUsd(model, vendorUsage),
    };
    return (await markCompleted(deps.sql, lease.generationId, result, priceChatUsage(model as TextModel, usage), elapsed, null)) !== null;
  }
  if (lease.category !== 'text' && lease.upstreamJobId) {
    await deps.queue.enqueue(lease.generationId);
    await deps.leases.drop(lease.generationId);
    return true;
  }
  return (await markFailed(deps.sql, lease.generationId, 'upstream', failureMessage('upstream', model.slug), elapsed)) !== null;
}
