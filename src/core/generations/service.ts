import type { UserRecord } from '../records';
import { DataSource, In } from 'typeorm';
import { GenerationEntity } from '../../db/entities';
import type { GenerationSource } from '../../db/entities/generation.entity';
import type { Logger } from '../../logger';
import { NotFoundError } from '../accounts/errors';
import { assertKeyAllowsModel, KeyScope } from '../accounts/key-limits';
import { Plan } from '../accounts/plans';
import { Queryable } from '../billing/queryable';
import type { CommandInput, CommandInputs, GenerateCommand } from '../catalog/command';
import type { NormalizedParams } from '../catalog/params';
import { quoteGeneration } from '../catalog/pricing';
import { normalizeSttOptions, resolveSttModel, type SttOptionsInput } from '../catalog/stt-options';
import { modelOfRecord } from '../catalog/lifecycle';
import { ModelDefinition } from '../catalog/types';
import { RateDecision, RateLimiter } from '../limits/rate-limiter';
import { newResultKey, ResultStorage, readStoredObject } from '../media/storage';
import { InputFile, MediaPoll, MediaStart, ProviderError } from '../providers/types';
import { assertCanUseModel, assertRunnable, cannotServeNow } from './access';
import { ClientGoneError, InputError } from './errors';
import { inpaintMask } from './media/inpaint-mask';
import type { DeliveryTarget } from './delivery/delivery-outbox';
import { InputResolver } from './media/inputs';
import { GenerationLeases } from './settlement/leases';
import { createPendingGeneration, withdrawPendingGeneration } from './settlement/lifecycle';
import { buildMediaRequest, MediaInputs, MediaRunner, SttExtras } from './media/runner';
import type { IdempotentAttempt } from './idempotency';
import { GenerationQueue } from './ports';
import { movesOn, ProviderRouter } from '../providers/router';

export interface Actor {
  user: UserRecord;
  plan: Plan;
  /** The API key the request came with: its model list is checked here, its budget in the token hold. */
  key?: KeyScope;
}

export interface RequestContext {
  source: GenerationSource;
  /** Origins under which this service's own `/files/...` result URLs are reachable (results chain). */
  ownOrigins: string[];
  /** Where the bot should deliver an asynchronous result. */
  delivery?: DeliveryTarget;
  /** The origin the request was addressed to, stored as the base of the result's link (core/links); none for the bot and schedules. */
  linkOrigin?: string;
  /**
   * Aborted when the client leaves: until the vendor call goes out (waiting for a slot under PROVIDER_CONCURRENCY
   * included), its generation is withdrawn, nothing is charged and the vendor is not called.
   */
  signal?: AbortSignal;
  /** The request's attempt under an Idempotency-Key: each generation opened is tied to it before the vendor call. */
  attempt?: IdempotentAttempt;
}

export interface GenerationOutcome {
  generation: GenerationEntity;
  rate: RateDecision;
  /** The retired model the request named, when its replacement ran it (the door says so in a header). */
  replaced?: { from: string };
}

export interface GenerationServiceDeps {
  ds: DataSource;
  /** The hot-path SQL runner (prepared statements on the pool). */
  sql: Queryable;
  limiter: RateLimiter;
  router: ProviderRouter;
  runner: MediaRunner;
  inputs: InputResolver;
  storage: ResultStorage;
  queue: GenerationQueue;
  log: Logger;
  /** Marks the inline runs this process does itself, so its restart resolves them (see settlement/recovery.ts). */
  leases?: GenerationLeases;
  /** How long a synchronous request waits before it is answered `pending` and handed to the workers. */
  inlineBudgetMs?: number;
  /** A pending generation still unfinished after this long fails with a timeout (and is released). */
  asyncDeadlineMs?: number;
}

/** Several generations of one command (`generateCopies`), in order. */
export interface CopiesOutcome {
  generations: GenerationEntity[];
  rate: RateDecision;
}

/** What the worker needs besides the normalised params: where inputs were persisted, STT options. */
interface StoredParams extends NormalizedParams {
  inputKeys?: string[];
  maskKey?: string;
  audioKey?: string;
  stt?: SttExtras;
  /** The retired model the request named, served by this generation's model (see views.ts: its warning). */
  replacedFrom?: { slug: string; shutdownAt: string | null };
  /** The price of this model's result, when the hold also covers fallbacks (else the hold is the price). */
  charge?: number;
  /** Models to run instead, in order (with their own options and price), when this one cannot serve before its first byte. */
  fallbacks?: StoredFallback[];
}

interface StoredFallback {
  slug: string;
  params: StoredParams;
  charge: number;
}

function storedParamsOf(command: Pick<GenerateCommand, 'params' | 'replaced'>): StoredParams {
  return command.replaced
    ? { ...command.params, replacedFrom: { slug: command.replaced.from, shutdownAt: command.replaced.shutdownAt } }
    : command.params;
}

/** How long a media request waits for its result before answering with the pending generation. */
export const DEFAULT_INLINE_BUDGET_MS = 90_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** @throws ClientGoneError when the request's client has left (before anything was sent to the vendor). */
function stillWanted(ctx: RequestContext): void {
  if (ctx.signal?.aborted) throw new ClientGoneError();
}

/**
 * The generation pipeline shared by the API and the bot:
 * quote -> access -> provider available -> admit (rate counters) -> inputs -> reserve -> run now or enqueue ->
 * settle to the actual cost, or release everything on failure.
 */
export class GenerationService {
  private readonly inlineBudgetMs: number;
  private readonly asyncDeadlineMs: number;

  constructor(private readonly deps: GenerationServiceDeps) {
    this.inlineBudgetMs = deps.inlineBudgetMs ?? DEFAULT_INLINE_BUDGET_MS;
    this.asyncDeadlineMs = deps.asyncDeadlineMs ?? 30 * 60_000;
  }

  /**
   * The checks every model-running request passes before any money moves. A key's model list names what its client
   * asks for (`requested`): a retired model's replacement answers for it.
   */
  private admit(actor: Actor, model: ModelDefinition, requested = model.slug): Promise<RateDecision> {
    assertKeyAllowsModel(actor.key, requested);
    assertRunnable(actor.plan, model, this.deps.router);
    return this.deps.limiter.admit(actor.user.id, actor.plan);
  }

  /**
   * A command with fallbacks: every model must be open to the key and the plan; the first that can serve now runs
   * (one whose vendor is unreachable, or that retired, is passed over), the others wait in its params. One hold
   * covers whichever serves; it is billed at its own price.
   */
  private async admitWithFallbacks(actor: Actor, command: GenerateCommand) {
    const candidates = [command, ...(command.fallbacks ?? [])];
    for (const c of candidates) {
      assertKeyAllowsModel(actor.key, c.replaced?.from ?? c.model.slug);
      assertCanUseModel(actor.plan, c.model);
    }
    let reason: unknown;
    const first = candidates.findIndex((c) => {
      try {
        this.deps.router.assertAvailable(c.model.provider, c.model.slug);
        return true;
      } catch (err) {
        if (!cannotServeNow(err)) throw err;
        reason ??= err;
        return false;
      }
    });
    if (first < 0) throw reason;
    const [chosen, ...rest] = candidates.slice(first).map((c) => {
      const params = storedParamsOf(c);
      return { model: c.model, params, charge: quoteGeneration(c.model, params) };
    });
    const cost = Math.max(chosen!.charge, ...rest.map((c) => c.charge));
    const fallbacks = rest.map((c) => ({ slug: c.model.slug, params: c.params, charge: c.charge }));
    const params: StoredParams = { ...chosen!.params, charge: chosen!.charge, ...(fallbacks.length ? { fallbacks } : {}) };
    return { model: chosen!.model, params, cost, rate: await this.deps.limiter.admit(actor.user.id, actor.plan) };
  }

  /**
   * The generation's next fallback, after its model failed before its first byte (the row then names that model
   * and keeps its options and price); undefined when there is none, or the failure would stop any model.
   */
  private async fallBack(gen: GenerationEntity, params: StoredParams, failure: unknown) {
    if (!movesOn(failure)) return undefined;
    const [next, ...rest] = params.fallbacks ?? [];
    if (!next) return undefined;
    const { inputKeys, maskKey, audioKey } = params;
    const stored: StoredParams = {
      ...next.params,
      ...(inputKeys ? { inputKeys } : {}),
      ...(maskKey ? { maskKey } : {}),
      ...(audioKey ? { audioKey } : {}),
      charge: next.charge,
      ...(rest.length ? { fallbacks: rest } : {}),
    };
    const model = modelOfRecord(next.slug);
    await this.deps.ds.query(`UPDATE generations SET model_slug = $2, params = $3 WHERE id = $1 AND status = 'pending'`, [
      gen.id,
      model.slug,
      JSON.stringify(stored),
    ]);
    gen.modelSlug = model.slug;
    gen.params = stored as unknown as Record<string, unknown>;
    this.deps.log.info({ generation: gen.id, to: model.slug }, 'generation falls back to the next model');
    return { model, params: stored };
  }

  /**
   * POST /api/v2/generate and /inpaint, the bot's image, video, speech, music and tool actions, schedules: the
   * door has parsed its request into the command.
   */
  async generate(actor: Actor, command: GenerateCommand, ctx: RequestContext): Promise<GenerationOutcome> {
    const { generations, rate } = await this.generateCopies(actor, command, ctx, 1);
    return { generation: generations[0]!, rate };
  }

  /**
   * `copies` generations of one command (the compatible surfaces' `n`): one request against the rate limits, one
   * input check, a hold per copy taken before any runs. When the balance cannot cover them all, the holds already
   * taken are withdrawn and nothing reaches the vendor.
   */
  async generateCopies(actor: Actor, command: GenerateCommand, ctx: RequestContext, copies: number): Promise<CopiesOutcome> {
    const { model, params, cost, rate } = command.fallbacks?.length
      ? await this.admitWithFallbacks(actor, command)
      : {
          ...command,
          params: storedParamsOf(command),
          cost: quoteGeneration(command.model, storedParamsOf(command)),
          rate: await this.admit(actor, command.model, command.replaced?.from),
        };
    const inputs = await this.resolveInputs(command.inputs, ctx);
    if (model.category === 'tool' && model.config.supports_mask && inputs.images[0]) {
      inputs.mask = await inpaintMask(inputs.images[0], inputs.mask, command.inputs.maskField ?? 'params.mask_url', {
        sameSize: command.inputs.maskSameSize,
      });
    }
    const opened: GenerationEntity[] = [];
    try {
      for (let i = 0; i < copies; i++) opened.push(await this.open(actor, model, params, cost, ctx));
      stillWanted(ctx);
    } catch (err) {
      await Promise.all(opened.map((gen) => withdrawPendingGeneration(this.deps.sql, gen.id)));
      throw err;
    }
    const generations = await Promise.all(opened.map((gen) => this.execute(gen, model, params, inputs, ctx.signal)));
    return { generations, rate };
  }

  /**
   * The caller's generations once none is pending any more, or as they are when `timeoutMs` passes (or `signal`
   * aborts): for doors whose answer must carry the result (an asynchronous model, or one past the inline budget).
   */
  async waitUntilFinished(userId: number, ids: readonly number[], timeoutMs: number, signal?: AbortSignal): Promise<GenerationEntity[]> {
    const deadline = Date.now() + timeoutMs;
    let interval = 100;
    for (;;) {
      const rows = await this.deps.ds.getRepository(GenerationEntity).findBy({ id: In([...ids]), userId });
      const byId = new Map(rows.map((g) => [g.id, g]));
      const ordered = ids.map((id) => byId.get(id)).filter((g): g is GenerationEntity => g !== undefined);
      if (ordered.every((g) => g.status !== 'pending') || Date.now() + interval > deadline || signal?.aborted) return ordered;
      await sleep(interval);
      interval = Math.min(interval * 1.5, 1000);
    }
  }

  /** POST /api/v2/stt: the audio has already been received (and size-checked) by the transport. */
  async transcribe(
    actor: Actor,
    input: { audio: InputFile; model?: string | null } & SttOptionsInput,
    ctx: RequestContext,
  ): Promise<GenerationOutcome> {
    const { model, replaced } = resolveSttModel(input.model);
    const options = normalizeSttOptions(model, input);
    const params: StoredParams = {
      prompt: '',
      format: 'webp',
      quality: 'standard',
      stt: options,
      ...(replaced ? { replacedFrom: { slug: replaced.from, shutdownAt: replaced.shutdownAt } } : {}),
    };
    const cost = quoteGeneration(model, params);
    const rate = await this.admit(actor, model, replaced?.from);
    const generation = await this.run(actor, model, params, { images: [], audio: input.audio }, cost, ctx);
    return replaced ? { generation, rate, replaced: { from: replaced.from } } : { generation, rate };
  }

  /**
   * The account's generations of one category whose results were not deleted, newest first (or oldest, `asc`), after
   * the generation `afterId` in that order: a page of OpenAI's GET /v1/videos. `onlyKey`: a restricted key's own.
   */
  async listOfCategory(
    userId: number,
    category: string,
    page: { afterId?: number; limit: number; order: 'asc' | 'desc'; onlyKey?: number },
  ): Promise<{ items: GenerationEntity[]; hasMore: boolean }> {
    const query = this.deps.ds
      .getRepository(GenerationEntity)
      .createQueryBuilder('g')
      .where('g.user_id = :userId AND g.category = :category AND g.result_deleted_at IS NULL', { userId, category })
      .orderBy('g.id', page.order === 'asc' ? 'ASC' : 'DESC')
      .take(page.limit + 1);
    if (page.onlyKey !== undefined) query.andWhere('g.api_key_id = :key', { key: page.onlyKey });
    if (page.afterId !== undefined) query.andWhere(page.order === 'asc' ? 'g.id > :after' : 'g.id < :after', { after: page.afterId });
    const rows = await query.getMany();
    return { items: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
  }

  /** One generation of the account; `onlyKey`: the reader is a restricted API key, which sees only its own. */
  async get(userId: number, id: number, onlyKey?: number): Promise<GenerationEntity> {
    const gen = await this.deps.ds.getRepository(GenerationEntity).findOneBy({ id, userId });
    if (!gen || (onlyKey !== undefined && gen.apiKeyId !== onlyKey)) throw new NotFoundError('Generation');
    return gen;
  }

  /** Fetches the referenced images and checks every image (size, pixels, format) before money moves. */
  private async resolveInputs({ images, mask }: CommandInputs, ctx: RequestContext): Promise<MediaInputs> {
    const resolve = (input: CommandInput) =>
      'url' in input
        ? this.deps.inputs.image(input.field, input.url, ctx.ownOrigins)
        : this.deps.inputs.validateImage(input.file.field ?? input.field, input.file.data);
    const resolved = await Promise.all(images.map(resolve));
    return { images: resolved, mask: mask && (await resolve(mask)) };
  }

  private async run(
    actor: Actor,
    model: ModelDefinition,
    params: StoredParams,
    inputs: MediaInputs,
    cost: number,
    ctx: RequestContext,
  ): Promise<GenerationEntity> {
    const gen = await this.open(actor, model, params, cost, ctx);
    try {
      stillWanted(ctx);
    } catch (err) {
      await withdrawPendingGeneration(this.deps.sql, gen.id);
      throw err;
    }
    return this.execute(gen, model, params, inputs, ctx.signal);
  }

  /** Inserts the pending generation with its hold. @throws InsufficientTokensError, KeyBudgetExceededError */
  private async open(
    actor: Actor,
    model: ModelDefinition,
    params: StoredParams,
    cost: number,
    ctx: RequestContext,
  ): Promise<GenerationEntity> {
    const row = {
      userId: actor.user.id,
      modelSlug: model.slug,
      category: model.category,
      source: ctx.source,
      prompt: params.prompt || null,
      params: params as unknown as Record<string, unknown>,
      tokensReserved: cost,
      etaSeconds: model.etaSeconds,
      delivery: ctx.delivery ?? null,
      sandbox: this.deps.runner.isSandbox(model),
      deadlineAt: new Date(Date.now() + this.asyncDeadlineMs),
      apiKeyId: actor.key?.id ?? null,
      linkOrigin: ctx.linkOrigin ?? null,
    };
    const { id, createdAt } = await createPendingGeneration(this.deps.sql, row);
    if (ctx.attempt) {
      try {
        await ctx.attempt.link([id]);
      } catch (err) {
        // Not tied to its key, it must not run: a retry would run (and charge) the request a second time.
        await withdrawPendingGeneration(this.deps.sql, id).catch(() => undefined);
        throw err;
      }
    }
    return this.deps.ds.getRepository(GenerationEntity).create({ ...row, id, createdAt, status: 'pending' });
  }

  /** Runs an opened generation now, or hands it to the workers (asynchronous models). */
  private async execute(
    gen: GenerationEntity,
    model: ModelDefinition,
    params: StoredParams,
    inputs: MediaInputs,
    client?: AbortSignal,
  ): Promise<GenerationEntity> {
    if (model.execution === 'async') {
      await this.handOff(gen, params, inputs);
      return gen;
    }
    await this.deps.leases?.take(gen.id);
    return this.runInline(gen, model, params, inputs, client);
  }

  /** Runs a synchronous model within the request; past the inline budget it continues in the workers. */
  private async runInline(
    gen: GenerationEntity,
    model: ModelDefinition,
    params: StoredParams,
    inputs: MediaInputs,
    client?: AbortSignal,
  ): Promise<GenerationEntity> {
    let req = buildMediaRequest(model, params, inputs, params.stt);
    const deadline = Date.now() + this.inlineBudgetMs;
    let started: MediaStart & { connection: string };
    for (;;) {
      try {
        started = await this.deps.runner.start(model, req, deadline, !!params.fallbacks?.length, client);
        break;
      } catch (err) {
        if (err instanceof ClientGoneError) {
          // Gone while it waited for the vendor: never sent, nothing charged, no history.
          await withdrawPendingGeneration(this.deps.sql, gen.id);
          throw err;
        }
        const next = await this.fallBack(gen, params, err);
        if (!next) return this.deps.runner.fail(gen, model, err);
        ({ model, params } = next);
        if (model.execution === 'async') {
          await this.handOff(gen, params, inputs);
          return gen;
        }
        req = buildMediaRequest(model, params, inputs, params.stt);
      }
    }
    let state: MediaStart | MediaPoll = started;
    if (started.state === 'pending') {
      const upstreamJobId = started.upstreamJobId;
      await this.saveUpstreamJob(gen, upstreamJobId, started.etaSeconds, started.connection);
      let interval = this.deps.runner.isSandbox(model) ? 100 : 1000;
      while (state.state === 'pending') {
        if (Date.now() + interval > deadline) {
          await this.handOff(gen, params, inputs, interval);
          return gen;
        }
        await sleep(interval);
        interval = Math.min(interval * 1.5, 3000);
        try {
          state = await this.deps.runner.poll(model, req, upstreamJobId, started.connection, deadline);
        } catch (err) {
          if (err instanceof ProviderError && err.retryable) continue;
          return this.deps.runner.fail(gen, model, err);
        }
      }
    }
    if (state.state === 'failed') return this.deps.runner.fail(gen, model, state.error);
    if (state.state !== 'completed') throw new Error('unreachable: generation still pending');
    return this.deps.runner.complete(gen, model, params, state.output);
  }

  private async saveUpstreamJob(gen: GenerationEntity, upstreamJobId: string, etaSeconds: number, connection: string): Promise<void> {
    gen.upstreamJobId = upstreamJobId;
    gen.upstreamConnection = connection;
    gen.etaSeconds = Math.max(1, Math.round(etaSeconds));
    await this.deps.ds.query('UPDATE generations SET upstream_job_id = $2, eta_seconds = $3, upstream_connection = $4 WHERE id = $1', [
      gen.id,
      upstreamJobId,
      gen.etaSeconds,
      connection,
    ]);
  }

  /** Persists the inputs (so any instance can continue) and queues the durable job. */
  private async handOff(gen: GenerationEntity, params: StoredParams, inputs: MediaInputs, delayMs = 0): Promise<void> {
    const persist = async (file: InputFile) => {
      const key = `inputs/${newResultKey('bin')}`;
      await this.deps.storage.put(key, file.data, file.mime);
      return key;
    };
    const stored: StoredParams = { ...params };
    if (inputs.images.length > 0) stored.inputKeys = await Promise.all(inputs.images.map(persist));
    if (inputs.mask) stored.maskKey = await persist(inputs.mask);
    if (inputs.audio) stored.audioKey = await persist(inputs.audio);
    gen.params = stored as unknown as Record<string, unknown>;
    await this.deps.ds.query('UPDATE generations SET params = $2 WHERE id = $1', [gen.id, JSON.stringify(stored)]);
    await this.deps.queue.enqueue(gen.id, delayMs);
    await this.deps.leases?.drop(gen.id);
  }

  private async loadInputs(params: StoredParams): Promise<MediaInputs> {
    const load = async (key: string): Promise<InputFile> => {
      const obj = await this.deps.storage.get(key);
      if (!obj) throw new InputError('input', 'an input file of this generation is gone');
      return { data: await readStoredObject(obj, 100 * 1024 * 1024), mime: obj.mime };
    };
    return {
      images: await Promise.all((params.inputKeys ?? []).map(load)),
      mask: params.maskKey ? await load(params.maskKey) : undefined,
      audio: params.audioKey ? await load(params.audioKey) : undefined,
    };
  }

  /**
   * One step of a pending generation, run by the durable job: submit it upstream, or poll it once. Returns the
   * delay after which the next step should run, or null when the generation is finished.
   */
  async advance(id: number): Promise<number | null> {
    const gen = await this.deps.ds.getRepository(GenerationEntity).findOneBy({ id });
    if (!gen || gen.status !== 'pending') return null;
    const model = modelOfRecord(gen.modelSlug);
    if (gen.deadlineAt && gen.deadlineAt.getTime() < Date.now()) {
      await this.deps.runner.fail(gen, model, new ProviderError('timeout', 'deadline passed', model.provider));
      return null;
    }
    const params = gen.params as unknown as StoredParams;
    let inputs: MediaInputs;
    try {
      inputs = await this.loadInputs(params);
    } catch (err) {
      await this.deps.runner.fail(gen, model, err);
      return null;
    }
    const req = buildMediaRequest(model, params, inputs, params.stt);
    const interval = this.deps.runner.isSandbox(model) ? 200 : 2000;
    let state: MediaStart | MediaPoll;
    try {
      if (!gen.upstreamJobId) {
        const started = await this.deps.runner.start(model, req, gen.deadlineAt?.getTime(), !!params.fallbacks?.length);
        if (started.state === 'pending') {
          await this.saveUpstreamJob(gen, started.upstreamJobId, started.etaSeconds, started.connection);
          return interval;
        }
        state = started;
      } else {
        state = await this.deps.runner.poll(model, req, gen.upstreamJobId, gen.upstreamConnection, gen.deadlineAt?.getTime());
      }
    } catch (err) {
      // A flaky poll is retried until the deadline; a refused submission fails the generation now, unless a
      // fallback may take it (its submission is the next step).
      if (gen.upstreamJobId && err instanceof ProviderError && err.retryable) return interval * 2;
      if (!gen.upstreamJobId && (await this.fallBack(gen, params, err))) return 0;
      await this.deps.runner.fail(gen, model, err);
      return null;
    }
    if (state.state === 'pending') return interval;
    if (state.state === 'failed') await this.deps.runner.fail(gen, model, state.error);
    else await this.deps.runner.complete(gen, model, params, state.output);
    await this.dropInputs(params);
    return null;
  }

  /** A finished generation's persisted inputs are not needed any more (in whichever store holds them). */
  private async dropInputs(params: StoredParams): Promise<void> {
    const keys = [...(params.inputKeys ?? []), params.maskKey, params.audioKey].filter((k): k is string => !!k);
    await Promise.all(keys.map((k) => this.deps.storage.delete(k).catch(() => undefined)));
  }

  /** Fails (and releases) pending generations whose deadline passed, whatever happened to their jobs. */
  async sweepExpired(): Promise<number> {
    const rows = await this.deps.ds.query<{ id: number }[]>(
      `SELECT id FROM generations WHERE status = 'pending' AND deadline_at < now() - interval '1 minute' LIMIT 100`,
    );
    for (const { id } of rows) {
      const gen = await this.deps.ds.getRepository(GenerationEntity).findOneBy({ id });
      if (!gen) continue;
      const model = modelOfRecord(gen.modelSlug);
      await this.deps.runner.fail(gen, model, new ProviderError('timeout', 'deadline passed', model.provider));
    }
    return rows.length;
  }
}
