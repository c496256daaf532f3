// What every media codec of /v1 (images, audio, videos) shares: the request context, one run under the
// Idempotency-Key, the finished generations, their result files, and the headers of the answer. The codecs only
// translate OpenAI's requests into core commands and the generations back into OpenAI's answers.
import type { ParameterizedContext } from 'koa';
import type { GenerateCommand } from '../../../core/catalog/command';
import type { FitKey } from '../../../core/catalog/fit';
import { GenerationFailedError } from '../../../core/generations/errors';
import type { GenerationOutcome, RequestContext } from '../../../core/generations/service';
import { readStoredObject } from '../../../core/media/storage';
import type { ProviderErrorKind } from '../../../core/providers/types';
import type { GenerationRecord } from '../../../core/records';
import { readWarnings } from '../../../core/warnings';
import type { ApiServices } from '../../api-services';
import { clientSignal } from '../../client-signal';
import { idempotentAttemptOf, idempotentResponse } from '../../idempotent';
import { actorOf, authOf } from '../../middleware/auth';
import { ApiError } from '../../middleware/errors';
import { applyRateLimitHeaders } from '../../middleware/rate-limit-headers';
import { announceReplacement } from '../../model-replaced';
import { ownOrigins, requestOrigin } from '../../v2/public-url';

export type MediaServices = Pick<ApiServices, 'config' | 'generations' | 'idempotency' | 'resultFiles' | 'profiles'>;

/** How long an answer that must carry its result (an image, speech, a transcript) waits for a queued generation. */
export const RESULT_WAIT_MS = 5 * 60_000;

/** The largest result read into an answer (a b64_json image, a speech file). */
const MAX_RESULT_BYTES = 64 * 1024 * 1024;

export function mediaContext(ctx: ParameterizedContext, services: MediaServices): RequestContext {
  return {
    source: 'v1',
    ownOrigins: ownOrigins(ctx, services.config),
    linkOrigin: requestOrigin(ctx),
    signal: clientSignal(ctx),
    attempt: idempotentAttemptOf(ctx),
  };
}

/** What a run stores under its Idempotency-Key: the generations it started and the options it ignored. */
interface StartedRun {
  generation_ids: number[];
  ignored: string[];
}

/** The wire names of the core's options on one surface (`size` stays `size`, `audioFormat` is `response_format`...). */
export type OptionNames = Readonly<Partial<Record<FitKey, string>>>;

/**
 * The generations of one request: started by `start` (which also names the options it ignored), or, for a replayed
 * Idempotency-Key, the ones the first attempt started.
 */
export async function startOnce(
  ctx: ParameterizedContext,
  services: MediaServices,
  route: string,
  fingerprintBody: unknown,
  start: () => Promise<{ ids: number[]; ignored: string[] }>,
): Promise<StartedRun> {
  const stored = await idempotentResponse(
    ctx,
    services,
    route,
    fingerprintBody,
    async () => {
      const { ids, ignored } = await start();
      return { status: 200, body: { generation_ids: ids, ignored } satisfies StartedRun };
    },
    // The first attempt failed after starting them: the answer is theirs (the options it ignored are not known).
    async (ids) => ({ status: 200, body: { generation_ids: ids, ignored: [] } satisfies StartedRun }),
  );
  return stored.body as StartedRun;
}

/** Runs the command (`copies` of it) for the caller; sets the rate headers and X-Model-Replaced. */
export async function runCommand(
  ctx: ParameterizedContext,
  services: MediaServices,
  command: GenerateCommand,
  copies = 1,
): Promise<number[]> {
  const { generations, rate } = await services.generations.generateCopies(actorOf(ctx), command, mediaContext(ctx, services), copies);
  announceReplacement(ctx, command.replaced, command.model.slug);
  applyRate(ctx, rate);
  return generations.map((g) => g.id);
}

/** The rate headers of a model-running answer (X-RateLimit-Limit as the chat routes give it). */
export function applyRate(ctx: ParameterizedContext, rate: GenerationOutcome['rate']): void {
  applyRateLimitHeaders(ctx, rate);
  ctx.set('X-RateLimit-Limit', String(rate.limitHour));
}

/**
 * The run's generations once finished. All failed: the first failure is the answer (nothing was charged). Still
 * running past RESULT_WAIT_MS: 504 naming the generation, which finishes (and is billed) on its own.
 */
export async function finishedGenerations(
  ctx: ParameterizedContext,
  services: MediaServices,
  ids: readonly number[],
): Promise<GenerationRecord[]> {
  const generations = await services.generations.waitUntilFinished(authOf(ctx).userId, ids, RESULT_WAIT_MS, clientSignal(ctx));
  const pending = generations.find((g) => g.status === 'pending');
  if (pending) {
    throw new ApiError(
      504,
      'result_timeout',
      `The result is not ready yet: it is generation ${pending.id}, which keeps running (GET /api/v2/generate/${pending.id})`,
    );
  }
  const completed = generations.filter((g) => g.status === 'completed');
  if (completed.length === 0) {
    const failed = generations[0]!;
    throw new GenerationFailedError(
      failed.id,
      (failed.errorKind ?? 'upstream') as ProviderErrorKind,
      failed.error ?? 'The generation failed',
      failed.modelSlug,
    );
  }
  return completed;
}

/** The bytes of a generation's result file. */
export async function resultBytes(services: MediaServices, generation: GenerationRecord): Promise<{ data: Buffer; mime: string }> {
  const file = generation.resultKey ? await services.resultFiles.open(generation.resultKey) : undefined;
  if (file?.state !== 'stored') throw new ApiError(410, 'gone', `The result of generation ${generation.id} is no longer stored`);
  return { data: await readStoredObject(file.object, MAX_RESULT_BYTES), mime: file.object.mime };
}

/**
 * X-Ignored-Parameters: what the codec and the model's rules left out (`ignored`, wire names) plus what the vendor did
 * not take (the generations' warnings, named on /api/v2 as in `vendorNames`).
 */
export function setIgnored(
  ctx: ParameterizedContext,
  ignored: readonly string[],
  generations: readonly GenerationRecord[],
  vendorNames: Readonly<Record<string, string>>,
): void {
  const names = new Set(ignored);
  for (const g of generations) {
    for (const w of readWarnings(g.resultMetadata?.warnings)) {
      if (w.type === 'unsupported-setting') names.add(vendorNames[w.setting] ?? w.setting);
    }
  }
  if (names.size > 0) ctx.set('X-Ignored-Parameters', [...names].join(', '));
}

/** X-Token-Balance and the `service` object's fields: what the run charged and the balance after it. */
export async function billing(
  ctx: ParameterizedContext,
  services: MediaServices,
  generations: readonly GenerationRecord[],
): Promise<{ tokens_spent: number; balance: number }> {
  const balance = await services.profiles.totalTokens(authOf(ctx).userId);
  ctx.set('X-Token-Balance', String(balance));
  return { tokens_spent: generations.reduce((sum, g) => sum + (g.tokensSpent ?? 0), 0), balance };
}

/** The names of `keys` on the surface. */
export function wireNames(keys: readonly FitKey[], names: OptionNames): string[] {
  return keys.map((k) => names[k] ?? k);
}
