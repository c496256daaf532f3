import { DataSource } from 'typeorm';
import type { Logger } from '../../logger';
import { getBalance } from '../billing/ledger';
import { resolveModel } from '../catalog/lifecycle';
import { ParamError } from '../catalog/errors';
import { estimateChatReservation, estimatePromptTokens, priceChatUsage, resolveMaxTokens } from '../catalog/pricing';
import { TextModel } from '../catalog/types';
import { RateDecision, RateLimiter } from '../limits/rate-limiter';
import {
  ChatCapability,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
  ChatUsage,
  FinishReason,
  ProviderAdapter,
  ProviderError,
  ProviderConnection,
  ProviderName,
} from '../providers/types';
import { assertRunnable } from './access';
import {
  ChatInputMessage,
  ChatOptions,
  checkChatRequest,
  resolveImages,
  toolCallsText,
  withoutIgnored,
  withoutImageRefs,
} from './chat-request';
import { ProviderConnections } from './connections';
import { ClientGoneError, failureMessage, GenerationFailedError } from './errors';
import { announceFinished } from './announce';
import { BillingOutbox, DeferredOutcome } from './billing-outbox';
import { GenerationBilling } from './billing-batches';
import { InputResolver } from './inputs';
import { chatEarlyDispatchRefusedTotal, chatEarlyDispatchTotal, deferredBillingTotal } from '../ops/metrics';
import { InsufficientTokensError } from '../billing/errors';
import { BalanceHints } from './balance-hints';
import { GenerationLeases } from './leases';
import { GenerationNotifier } from './ports';
import { NewGeneration, NewLease } from './lifecycle';
import { ProviderGate } from './provider-gate';
import { assertKeyAllowsModel } from '../accounts/key-limits';
import { Actor, RequestContext } from './service';

export interface ChatInput extends ChatOptions {
  model: string;
  messages: ChatInputMessage[];
  maxTokens?: number | null;
  temperature?: number | null;
}

export interface ChatBilling {
  generationId: number;
  /** Tokens charged after reconciliation with the real usage. */
  tokensSpent: number;
  /** Balance after the charge; unknown while the charge is deferred. */
  balance?: number;
  /** The database was unavailable: the outcome waits in the billing outbox and is applied when it returns. */
  deferred?: boolean;
}

/** The retired model a request named, when its replacement answered (the doors say so: header, warnings). */
export interface ModelReplaced {
  from: string;
  shutdownAt: string | null;
}

export interface ChatOutcome extends ChatBilling {
  /** The model that answered: the requested one, or its replacement when that one is retired. */
  model: TextModel;
  replaced?: ModelReplaced;
  result: ChatResult;
  rate: RateDecision;
  /** Request parameters the model does not take, dropped before the call (for `X-Ignored-Parameters`). */
  ignored: string[];
}

export interface ChatStream {
  model: TextModel;
  replaced?: ModelReplaced;
  generationId: number;
  rate: RateDecision;
  /** The prompt's size as estimated before the call (the vendor's count comes with the `usage` event). */
  promptTokens: number;
  /** Request parameters the model does not take, dropped before the call (for `X-Ignored-Parameters`). */
  ignored: string[];
  /** Deltas as the vendor sends them. Stopping early (or aborting the signal) aborts the upstream request. */
  events: AsyncIterable<ChatStreamEvent>;
  /** Resolves once the stream ended and was billed: on what was delivered when it was cut off. */
  billed: Promise<StreamBilling>;
}

/** How a stream was billed; `usage` is what it was billed on (the vendor's count, or the delivered text measured). */
export type StreamBilling = ChatBilling & { failed: boolean; usage?: ChatUsage };

export interface ChatServiceDeps {
  ds: DataSource;
  /** Opens (holds tokens) and finishes (settles) the answers' generations, group-committed. */
  billing: GenerationBilling;
  limiter: RateLimiter;
  connections: ProviderConnections;
  gate: ProviderGate;
  adapters: Readonly<Record<ProviderName, ProviderAdapter>>;
  /** Fetches `image_url` parts (SSRF policy, size cap). */
  inputs: InputResolver;
  log: Logger;
  /** Where outcomes go when the database cannot take them. */
  outbox: BillingOutbox;
  /** Marks the answers this process runs (and a stream's progress) so a restart can settle them. */
  leases: GenerationLeases;
  /** Finished chats are announced like media generations (webhooks: one event stream per account). */
  notifier?: GenerationNotifier;
  /** The balances this instance last saw: when one clearly covers a hold, the vendor call starts beside the hold. */
  balances?: BalanceHints;
}

/** A vendor call started before its hold committed: it is aborted through `abort` if the hold is refused. */
interface EarlyStart<T> {
  abort: AbortController;
  start: (call: { chat: ChatCapability; request: ChatRequest; conn: ProviderConnection }) => T;
}

/** How often a running answer refreshes its lease (and a stream its delivered length). */
const LEASE_HEARTBEAT_MS = 2000;

const MAX_STORED_TEXT = 100_000;
const CHARS_PER_TOKEN = 4;

function messageText(m: ChatInputMessage): string {
  const text =
    typeof m.content === 'string'
      ? m.content
      : m.content
          .filter((p) => p.type === 'text')
          .map((p) => p.text)
          .join(' ');
  return text || toolCallsText(m.toolCalls);
}

/** The prompt's estimated size: messages, and tool definitions and earlier tool calls, which are prompt text too. */
function promptTokensOf(input: ChatInput): number {
  const chars =
    (input.tools ? JSON.stringify(input.tools).length : 0) + input.messages.reduce((n, m) => n + toolCallsText(m.toolCalls).length, 0);
  return estimatePromptTokens(input.messages) + Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Asks an event stream for its first event at once (its request goes out now); the events are read later, in order. */
function startNow<E>(events: AsyncIterable<E>): AsyncIterable<E> {
  const it = events[Symbol.asyncIterator]();
  const first = it.next();
  first.catch(() => undefined);
  return (async function* () {
    let ended = false;
    try {
      for (let step = await first; !step.done; step = await it.next()) yield step.value;
      ended = true;
    } finally {
      // A reader that stops early closes the vendor's stream too.
      if (!ended) await it.return?.();
    }
  })();
}

/** Text chat for /v1/chat/completions, /api/v2/generate/stream and the bot: reserve, call, settle on real usage. */
export class ChatService {
  private readonly balances: BalanceHints;

  constructor(private readonly deps: ChatServiceDeps) {
    this.balances = deps.balances ?? new BalanceHints();
  }

  /** The model that answers a request for `slug`: itself, or its replacement when it is retired. */
  private textModel(slug: string): { model: TextModel; replaced?: ModelReplaced } {
    const resolved = resolveModel(slug);
    const model = resolved.model;
    if (model.category !== 'text') {
      throw new ParamError('model', `${slug} is not a text model: use POST /api/v2/generate`);
    }
    return resolved.replacedFrom !== undefined
      ? { model, replaced: { from: resolved.replacedFrom, shutdownAt: resolved.shutdownAt ?? null } }
      : { model };
  }

  /** The prompt's size as the hold estimates it (what a token-counting endpoint answers); nothing is held or counted. */
  countPromptTokens(input: ChatInput): { model: TextModel; promptTokens: number } {
    const { model } = this.textModel(input.model);
    return { model, promptTokens: promptTokensOf(input) };
  }

  private prepare(actor: Actor, input: ChatInput) {
    const { model, replaced } = this.textModel(input.model);
    // A key's model list names what its client asks for: a retired model's replacement answers for it.
    assertKeyAllowsModel(actor.key, replaced?.from ?? model.slug);
    const maxTokens = resolveMaxTokens(model, input.maxTokens);
    const ignored = checkChatRequest(model, this.deps.adapters[model.provider].chat!, input.messages, input.temperature, input, maxTokens);
    const options = withoutIgnored(input, ignored);
    const conn = assertRunnable(actor.plan, model, this.deps.connections, this.deps.gate);
    const promptTokens = promptTokensOf(input);
    if (promptTokens >= model.config.max_context) {
      throw new ParamError('messages', `the conversation is longer than ${model.slug}'s context of ${model.config.max_context} tokens`);
    }
    const request: Omit<ChatRequest, 'messages'> = {
      upstreamModel: model.upstreamModel,
      maxTokens,
      temperature: input.temperature ?? undefined,
      tools: options.tools,
      toolChoice: options.toolChoice,
      parallelToolCalls: options.parallelToolCalls,
      responseFormat: options.responseFormat,
      stop: options.stop,
      topP: options.topP,
      seed: options.seed,
      presencePenalty: options.presencePenalty,
      frequencyPenalty: options.frequencyPenalty,
      user: options.user,
      reasoningEffort: options.reasoningEffort,
      metadata: options.metadata,
      serviceTier: options.serviceTier,
      store: options.store,
      promptCacheKey: options.promptCacheKey,
      safetyIdentifier: options.safetyIdentifier,
    };
    return {
      model,
      replaced,
      conn,
      request,
      promptTokens,
      reserve: estimateChatReservation(model, promptTokens, maxTokens),
      ignored: ignored.params,
    };
  }

  /**
   * Checks, counts and holds: the rate check and the hold run at the same time (two round trips in parallel); when
   * the rate limit refuses, or an image cannot be fetched, the hold is withdrawn before the error goes out.
   * With `early`, the vendor call starts beside them when no image has to be fetched first and the balance this
   * instance last saw clearly covers the hold (the hold's round trip is then off the answer's path); a refused hold
   * or rate check aborts that call at once, and nothing is charged.
   */
  private async begin<T>(actor: Actor, input: ChatInput, ctx: RequestContext, client: AbortSignal | undefined, early?: EarlyStart<T>) {
    const prepared = this.prepare(actor, input);
    const last = input.messages[input.messages.length - 1];
    const lease: NewLease = { instanceId: this.deps.leases.instanceId, promptTokens: prepared.promptTokens };
    const generation: NewGeneration = {
      userId: actor.user.id,
      modelSlug: prepared.model.slug,
      category: 'text',
      source: ctx.source,
      prompt: messageText(last).slice(0, 4000),
      params: {
        max_tokens: prepared.request.maxTokens,
        messages: input.messages.length,
        ...(input.tools?.length ? { tools: input.tools.map((t) => t.name) } : {}),
        ...(input.user !== undefined ? { user: input.user } : {}),
        ...(prepared.replaced ? { replacedFrom: { slug: prepared.replaced.from, shutdownAt: prepared.replaced.shutdownAt } } : {}),
      },
      tokensReserved: prepared.reserve,
      etaSeconds: prepared.model.etaSeconds,
      delivery: ctx.delivery ?? null,
      sandbox: prepared.conn.sandbox,
      deadlineAt: new Date(Date.now() + 30 * 60_000),
      apiKeyId: actor.key?.id ?? null,
    };
    const admitted = this.admit(actor, generation, lease);
    // A key with a budget of its own is checked in the hold: no vendor call before that check has passed.
    const covered = early && !client?.aborted && !actor.key?.budgeted && this.balances.covers(actor.user.id, prepared.reserve);
    const plain = covered ? withoutImageRefs(input.messages) : undefined;
    if (early && plain) {
      const request: ChatRequest = { ...prepared.request, messages: plain };
      const started = early.start({ chat: this.deps.adapters[prepared.model.provider].chat!, request, conn: prepared.conn });
      chatEarlyDispatchTotal.inc();
      try {
        const { rate, id, createdAt } = await admitted;
        return { ...prepared, userId: actor.user.id, request, rate, generationId: id, startedAt: createdAt.getTime(), started };
      } catch (err) {
        early.abort.abort();
        chatEarlyDispatchRefusedTotal.inc();
        throw err;
      }
    }
    const { rate, id, createdAt } = await admitted;
    let messages: ChatRequest['messages'];
    try {
      this.stillWanted(client, id);
      messages = await resolveImages(input.messages, (field, url) => this.deps.inputs.image(field, url, ctx.ownOrigins));
      this.stillWanted(client, id);
    } catch (err) {
      await this.withdraw(id);
      throw err;
    }
    const request: ChatRequest = { ...prepared.request, messages };
    return { ...prepared, userId: actor.user.id, request, rate, generationId: id, startedAt: createdAt.getTime(), started: undefined };
  }

  /** The rate check and the hold, side by side; a hold whose rate check refused is withdrawn before the error goes out. */
  private async admit(actor: Actor, generation: NewGeneration, lease: NewLease) {
    const [rated, opened] = await Promise.allSettled([
      this.deps.limiter.admit(actor.user.id, actor.plan),
      this.deps.billing.open(generation, lease),
    ]);
    if (rated.status === 'rejected') {
      if (opened.status === 'fulfilled') await this.withdraw(opened.value.id);
      throw rated.reason;
    }
    if (opened.status === 'rejected') {
      if (opened.reason instanceof InsufficientTokensError) this.balances.forget(actor.user.id);
      throw opened.reason;
    }
    return { rate: rated.value, ...opened.value };
  }

  /**
   * Right before the vendor call: a client already gone gets none (the caller withdraws the hold, nothing is
   * charged). @throws ClientGoneError
   */
  private stillWanted(client: AbortSignal | undefined, generationId: number): void {
    if (!client?.aborted) return;
    this.deps.log.debug({ generationId }, 'the client left before the vendor call: not called, not charged');
    throw new ClientGoneError();
  }

  /** Takes back a hold whose request was refused before the vendor call; if that fails, the deadline sweeper releases it. */
  private async withdraw(generationId: number): Promise<void> {
    try {
      await this.deps.billing.withdraw(generationId);
    } catch (err) {
      this.deps.log.error({ err, generationId }, 'a refused chat request kept its hold until the deadline sweep');
    }
  }

  /** Settles on the real usage; when the database cannot take it, the outcome goes to the outbox instead. */
  private async settle(
    run: { model: TextModel; userId: number; generationId: number; startedAt: number; reserve: number },
    text: string,
    usage: ChatUsage,
  ): Promise<ChatBilling> {
    const cost = priceChatUsage(run.model, usage);
    const outcome = {
      op: 'complete' as const,
      generationId: run.generationId,
      text: text.slice(0, MAX_STORED_TEXT),
      metadata: { ...usage },
      cost,
      processingMs: Date.now() - run.startedAt,
    };
    try {
      const done = await this.deps.billing.finish(outcome);
      if (done) {
        this.balances.note(run.userId, done.balance);
        await announceFinished(this.deps.ds, this.deps.notifier, done.row, this.deps.log);
      }
      return { generationId: run.generationId, tokensSpent: done?.tokensSpent ?? 0, balance: done?.balance ?? 0 };
    } catch (err) {
      await this.defer(outcome, err);
      return { generationId: run.generationId, tokensSpent: Math.min(cost, run.reserve), deferred: true };
    }
  }

  private async fail(
    run: { model: TextModel; generationId: number; startedAt: number },
    err: unknown,
    userId: number,
  ): Promise<ChatBilling> {
    const kind = err instanceof ProviderError ? err.kind : 'upstream';
    if (!(err instanceof ProviderError)) this.deps.log.error({ err, generationId: run.generationId }, 'chat failed unexpectedly');
    const outcome = {
      op: 'fail' as const,
      generationId: run.generationId,
      kind,
      message: failureMessage(kind, run.model.slug),
      processingMs: Date.now() - run.startedAt,
    };
    try {
      const done = await this.deps.billing.finish(outcome);
      if (done) await announceFinished(this.deps.ds, this.deps.notifier, done.row, this.deps.log);
      return { generationId: run.generationId, tokensSpent: 0, balance: done?.balance ?? (await getBalance(this.deps.ds, userId)).total };
    } catch (dbErr) {
      await this.defer(outcome, dbErr);
      return { generationId: run.generationId, tokensSpent: 0, deferred: true };
    }
  }

  private async defer(outcome: DeferredOutcome, cause: unknown): Promise<void> {
    this.deps.log.warn(
      { err: (cause as Error).message, generationId: outcome.generationId },
      'chat billing deferred: the database is unavailable',
    );
    deferredBillingTotal.inc();
    try {
      await this.deps.outbox.add(outcome);
    } catch (err) {
      // Nothing durable is left: the deadline sweeper releases the reservation (the answer goes unbilled).
      this.deps.log.error({ err, generationId: outcome.generationId }, 'chat billing could not be deferred');
    }
  }

  /** Answers in flight: a draining instance waits for them, then aborts the rest (billed on what was delivered). */
  private readonly inFlight = new Set<{ abort: AbortController; done: Promise<unknown> }>();

  get openAnswers(): number {
    return this.inFlight.size;
  }

  /** Tracks an answer until `done`, refreshing its lease with `delivered()` characters meanwhile. */
  private follow(generationId: number, abort: AbortController, done: Promise<unknown>, delivered: () => number = () => 0): void {
    const entry = { abort, done };
    this.inFlight.add(entry);
    const heartbeat = setInterval(
      () => void this.deps.leases.progress(generationId, delivered()).catch(() => undefined),
      LEASE_HEARTBEAT_MS,
    );
    heartbeat.unref();
    void done
      .finally(() => {
        clearInterval(heartbeat);
        this.inFlight.delete(entry);
      })
      .catch(() => undefined);
  }

  /**
   * Shutdown: lets open answers finish for up to `graceMs`, then aborts the rest; resolves once every one of them
   * was billed (or deferred), or after `graceMs + billMs` at the latest.
   */
  async drain(graceMs: number, billMs = 5000): Promise<void> {
    const all = () => Promise.allSettled([...this.inFlight].map((e) => e.done));
    const timeout = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
    await Promise.race([all(), timeout(graceMs)]);
    if (this.inFlight.size === 0) return;
    this.deps.log.warn({ open: this.inFlight.size }, 'aborting answers still open at shutdown; billed on what was delivered');
    for (const e of this.inFlight) e.abort.abort();
    await Promise.race([all(), timeout(billMs)]);
  }

  /** A whole answer at once. @throws GenerationFailedError (after releasing the reservation) when the vendor fails. */
  async complete(actor: Actor, input: ChatInput, ctx: RequestContext, signal?: AbortSignal): Promise<ChatOutcome> {
    const abort = new AbortController();
    const onClientAbort = () => abort.abort();
    signal?.addEventListener('abort', onClientAbort, { once: true });
    const run = await this.begin(actor, input, ctx, signal, {
      abort,
      start: ({ chat, request, conn }) => {
        const call = chat.chat(request, conn, abort.signal);
        call.catch(() => undefined);
        return call;
      },
    }).catch((err: unknown) => {
      signal?.removeEventListener('abort', onClientAbort);
      throw err;
    });
    const chat = this.deps.adapters[run.model.provider].chat!;
    const started = run.started;
    const work = (async (): Promise<ChatOutcome> => {
      let result: ChatResult;
      try {
        result = await this.deps.gate.track(run.model.provider, () => started ?? chat.chat(run.request, run.conn, abort.signal));
      } catch (err) {
        await this.fail(run, err, actor.user.id);
        const kind = err instanceof ProviderError ? err.kind : 'upstream';
        throw new GenerationFailedError(run.generationId, kind, failureMessage(kind, run.model.slug), run.model.slug);
      } finally {
        signal?.removeEventListener('abort', onClientAbort);
      }
      const billing = await this.settle(run, result.text || toolCallsText(result.toolCalls), result.usage);
      return {
        ...billing,
        model: run.model,
        ...(run.replaced ? { replaced: run.replaced } : {}),
        result,
        rate: run.rate,
        ignored: run.ignored,
      };
    })();
    this.follow(run.generationId, abort, work);
    return work;
  }

  /** A streamed answer; billing is reconciled when the stream ends, however it ends. */
  async stream(actor: Actor, input: ChatInput, ctx: RequestContext, signal?: AbortSignal): Promise<ChatStream> {
    const upstreamAbort = new AbortController();
    const onClientAbort = () => upstreamAbort.abort();
    signal?.addEventListener('abort', onClientAbort, { once: true });
    const run = await this.begin(actor, input, ctx, signal, {
      abort: upstreamAbort,
      start: ({ chat, request, conn }) => startNow(chat.chatStream(request, conn, upstreamAbort.signal)),
    }).catch((err: unknown) => {
      signal?.removeEventListener('abort', onClientAbort);
      throw err;
    });
    const chat = this.deps.adapters[run.model.provider].chat!;
    const started = run.started;
    let resolveBilled!: (b: StreamBilling) => void;
    const billed = new Promise<StreamBilling>((r) => (resolveBilled = r));
    let text = '';
    this.follow(run.generationId, upstreamAbort, billed, () => text.length);
    const self = this;

    async function* events(): AsyncGenerator<ChatStreamEvent> {
      // Tool-call names and argument fragments are completion text too.
      let toolText = '';
      let usage: ChatUsage | undefined;
      let finish: FinishReason | undefined;
      let failure: unknown;
      if (!started && upstreamAbort.signal.aborted) {
        // Gone between the hold and the first read of the stream: the vendor is not called, the hold withdrawn.
        signal?.removeEventListener('abort', onClientAbort);
        await self.withdraw(run.generationId);
        resolveBilled({ generationId: run.generationId, tokensSpent: 0, failed: true });
        return;
      }
      try {
        for await (const ev of started ?? chat.chatStream(run.request, run.conn, upstreamAbort.signal)) {
          if (ev.type === 'delta') text += ev.text;
          else if (ev.type === 'tool_call') toolText += (ev.name ?? '') + ev.arguments;
          else if (ev.type === 'usage') usage = ev.usage;
          else finish = ev.finishReason;
          yield ev;
        }
      } catch (err) {
        if (!upstreamAbort.signal.aborted) failure = err;
      } finally {
        // Reached on normal end, on upstream failure, and when the consumer stops early (client disconnect):
        // an unfinished upstream request is aborted. Billing never throws here (a database outage defers it), so
        // `billed` always resolves and the client always gets its end.
        if (finish === undefined) upstreamAbort.abort();
        signal?.removeEventListener('abort', onClientAbort);
        const cutOff = finish === undefined && failure === undefined;
        self.deps.gate.observe(run.model.provider, failure ?? null, run.startedAt);
        let billing: StreamBilling;
        if (failure !== undefined) {
          billing = { ...(await self.fail(run, failure, actor.user.id)), failed: true };
        } else {
          // Without the vendor's count (cut off, or none sent) the delivered text is measured instead.
          const measured: ChatUsage = {
            promptTokens: run.promptTokens,
            completionTokens: Math.ceil((text.length + toolText.length) / CHARS_PER_TOKEN),
          };
          const billedOn = cutOff || !usage ? measured : usage;
          const settled = await self.settle(run, text || toolText, billedOn);
          billing = { ...settled, failed: false, usage: billedOn };
        }
        resolveBilled(billing);
      }
      if (failure !== undefined) {
        const kind = failure instanceof ProviderError ? failure.kind : 'upstream';
        throw new GenerationFailedError(run.generationId, kind, failureMessage(kind, run.model.slug), run.model.slug);
      }
    }

    return {
      model: run.model,
      ...(run.replaced ? { replaced: run.replaced } : {}),
      generationId: run.generationId,
      rate: run.rate,
      promptTokens: run.promptTokens,
      ignored: run.ignored,
      events: events(),
      billed,
    };
  }
}
