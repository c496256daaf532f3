import { DataSource } from 'typeorm';
import { GenerationEntity } from '../../../db/entities';
import type { Logger } from '../../../logger';
import { PlanDirectory } from '../../accounts/plans';
import { Queryable } from '../../billing/queryable';
import { NormalizedParams } from '../../catalog/params';
import { ModelDefinition } from '../../catalog/types';
import { ResultStorage } from '../../media/storage';
import { InputFile, MediaPoll, MediaRequest, MediaStart, ProviderError, ProviderName } from '../../providers/types';
import type { ProviderAdapter } from '../../providers/adapter';
import { ClientGoneError, failureMessage } from '../errors';
import { markCompleted, markFailed } from '../settlement/lifecycle';
import { saysModelNotFound } from '../../providers/not-found';
import { mediaVendorUsage, vendorCostUsd } from '../../catalog/vendor-cost';
import { GenerationNotifier } from '../ports';
import { ProviderRouter } from '../../providers/router';
import { storeResult } from './results';

export interface MediaInputs {
  images: InputFile[];
  mask?: InputFile;
  audio?: InputFile;
}

export interface MediaRunnerDeps {
  ds: DataSource;
  /** The hot-path SQL runner (prepared statements on the pool). */
  sql: Queryable;
  plans: PlanDirectory;
  storage: ResultStorage;
  router: ProviderRouter;
  adapters: Readonly<Record<ProviderName, ProviderAdapter>>;
  notifier: GenerationNotifier;
  log: Logger;
  /** Told when the vendor answers that a catalog model does not exist (the catalog marks it suspect). */
  onModelNotFound?: (slug: string) => void;
}

/** Extra per-request options that are not part of the generate body (STT). */
export interface SttExtras {
  language?: string;
  diarize?: boolean;
  /** Words and style to expect (the vendor's `prompt`). */
  prompt?: string;
  /** Translate into English rather than transcribe. */
  translate?: boolean;
}

/** The adapter's request: only the options of the model's category, in that category's request type. */
export function buildMediaRequest(model: ModelDefinition, params: NormalizedParams, inputs: MediaInputs, stt?: SttExtras): MediaRequest {
  const base = { slug: model.slug, upstreamModel: model.upstreamModel, prompt: params.prompt || undefined };
  const images = inputs.images.length > 0 ? inputs.images : undefined;
  switch (model.category) {
    case 'text':
      throw new TypeError('text models do not run as media');
    case 'image':
      return {
        ...base,
        category: 'image',
        negativePrompt: params.negativePrompt,
        size: params.size,
        quality: params.quality,
        style: params.style,
        seed: params.seed,
        images,
      };
    case 'video':
      return {
        ...base,
        category: 'video',
        negativePrompt: params.negativePrompt,
        size: params.size,
        seed: params.seed,
        durationSeconds: params.durationSeconds,
        images,
      };
    case 'tts':
      return { ...base, category: 'tts', voiceId: params.voiceId, speed: params.speed, audioFormat: params.audioFormat };
    case 'stt':
      return {
        ...base,
        category: 'stt',
        prompt: stt?.prompt,
        audio: inputs.audio,
        language: stt?.language,
        diarize: stt?.diarize,
        translate: stt?.translate,
      };
    case 'music':
      return { ...base, category: 'music', seed: params.seed, durationSeconds: params.durationSeconds, audioFormat: params.audioFormat };
    case 'tool':
      return { ...base, category: 'tool', images, mask: inputs.mask, scale: params.scale };
  }
}

/** Talks to the adapter through the provider gate and records the outcome (settle or release). */
export class MediaRunner {
  constructor(private readonly deps: MediaRunnerDeps) {}

  private adapter(model: ModelDefinition) {
    const media = this.deps.adapters[model.provider].media;
    if (!media) throw new ProviderError('bad_request', `${model.provider} has no media capability`, model.provider);
    return media;
  }

  isSandbox(model: ModelDefinition): boolean {
    return this.deps.router.connections.info(model.provider).mode === 'sandbox';
  }

  /**
   * Runs or submits the request on the vendor's first connection that takes it, and names that connection (a
   * pending job is polled there). `deadlineAt` bounds the retries of transient vendor failures (epoch ms);
   * `moreToTry`: a fallback model waits, so no connection retries in place.
   */
  start(
    model: ModelDefinition,
    req: MediaRequest,
    deadlineAt?: number,
    moreToTry = false,
    client?: AbortSignal,
  ): Promise<MediaStart & { connection: string }> {
    const media = this.adapter(model);
    return this.deps.router
      .route(model.provider, model.slug)
      .call(async ({ conn, connection }) => ({ ...(await media.start(req, conn)), connection: connection.id }), {
        queued: true,
        deadlineAt,
        moreToTry,
        // A client that left while the call waited for its slot gets none: the vendor is not called.
        beforeDispatch: () => {
          if (client?.aborted) throw new ClientGoneError();
        },
      });
  }

  /** Polls a job on the connection that accepted it (`connection`: its id; null: the vendor's first). */
  poll(
    model: ModelDefinition,
    req: MediaRequest,
    upstreamJobId: string,
    connection: string | null,
    deadlineAt?: number,
  ): Promise<MediaPoll> {
    const media = this.adapter(model);
    return this.deps.router
      .pinned(model.provider, model.slug, connection)
      .call(({ conn }) => media.poll(upstreamJobId, req, conn), { queued: true, deadlineAt });
  }

  async complete(gen: GenerationEntity, model: ModelDefinition, params: NormalizedParams, output: Parameters<typeof storeResult>[3]) {
    let stored;
    try {
      stored = await storeResult(this.deps.storage, model, params, output);
    } catch (err) {
      return this.fail(gen, model, err);
    }
    // Options the vendor left out travel with the result's metadata; the generation view shows them as `warnings`.
    if (output.warnings && output.warnings.length > 0) stored = { ...stored, metadata: { ...stored.metadata, warnings: output.warnings } };
    const vendorUsage = mediaVendorUsage(model, params, output);
    stored = { ...stored, vendorUsage: { ...vendorUsage }, vendorCostUsd: vendorCostUsd(model, vendorUsage, params) };
    const user = await this.deps.ds.query<{ plan_slug: string }[]>('SELECT plan_slug FROM users WHERE id = $1', [gen.userId]);
    const plan = await this.deps.plans.get(user[0]?.plan_slug ?? 'free');
    // A hold that also covered fallbacks says what the model that served costs; otherwise the hold is the price.
    const charge = typeof gen.params.charge === 'number' ? gen.params.charge : gen.tokensReserved;
    const won = await markCompleted(this.deps.sql, gen.id, stored, charge, Date.now() - gen.createdAt.getTime(), plan.retentionDays);
    return this.finished(gen.id, won !== null);
  }

  async fail(gen: GenerationEntity, model: ModelDefinition, err: unknown): Promise<GenerationEntity> {
    const kind = err instanceof ProviderError ? err.kind : 'upstream';
    if (err instanceof ProviderError)
      this.deps.log.warn({ generation: gen.id, model: model.slug, kind, upstream: err.message }, 'generation failed');
    else this.deps.log.error({ generation: gen.id, model: model.slug, err }, 'generation failed unexpectedly');
    if (saysModelNotFound(err)) this.deps.onModelNotFound?.(model.slug);
    const won = await markFailed(this.deps.sql, gen.id, kind, failureMessage(kind, model.slug), Date.now() - gen.createdAt.getTime());
    return this.finished(gen.id, won !== null);
  }

  /** Reloads the row; only the call that made the transition announces it. */
  private async finished(id: number, announce: boolean): Promise<GenerationEntity> {
    const gen = await this.deps.ds.getRepository(GenerationEntity).findOneByOrFail({ id });
    if (announce) await this.deps.notifier.generationFinished(gen);
    return gen;
  }
}
