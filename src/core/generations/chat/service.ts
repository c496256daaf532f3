import type { Logger } from '../../../logger';
import { TextModel } from '../../catalog/types';
import { RateDecision, RateLimiter } from '../../limits/rate-limiter';
import {
  ChatCapability,
  ChatMessage,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
  ChatUsage,
  FinishReason,
  ProviderError,
  ProviderName,
} from '../../providers/types';
import type { ProviderAdapter } from '../../providers/adapter';
import { DataSource } from 'typeorm';
import { chatEarlyDispatchRefusedTotal, chatEarlyDispatchTotal } from '../../ops/metrics';
import { AnswersInFlight } from './answers-in-flight';
import { BalanceHints } from './balance-hints';
import { BillingOutbox } from '../settlement/billing-outbox';
import { GenerationBilling } from '../settlement/billing-batches';
import { CHARS_PER_TOKEN, messageText, PreparedChat, prepareCandidates, promptTokensOf, textModelFor } from './prepare';
import { reasoningFor, resolveImages, toolCallsText, withoutImageRefs } from './request';
import { ChatSettlement } from './settlement';
import type { ChatInput, ChatOutcome, ChatStream, StreamBilling } from './types';
import { ClientGoneError, failureMessage, GenerationFailedError } from '../errors';
import { InputResolver } from '../media/inputs';
import { GenerationLeases } from '../settlement/leases';
import { NewGeneration, NewLease } from '../settlement/lifecycle';
import { GenerationNotifier } from '../ports';
import { movesOn, ProviderRouter, VendorRoute } from '../../providers/router';
import { ProviderUnavailableError } from '../../providers/errors';
import { Actor, RequestContext } from '../service';

export interface ChatServiceDeps {
  ds: DataSource;
  /** Opens (holds tokens) and finishes (settles) the answers' generations, group-committed. */
  billing: GenerationBilling;
  limiter: RateLimiter;
  router: ProviderRouter;
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
  /** Told when the vendor answers that a catalog model does not exist (the catalog marks it suspect). */
  onModelNotFound?: (slug: string) => void;
}

/** A vendor call started before its hold committed: it is aborted through `abort` if the hold is refused. */
interface EarlyStart<T> {
  abort: AbortController;
  start: (call: { chat: ChatCapability; request: ChatRequest; route: VendorRoute; moreToTry: boolean }) => T;
}

/** What a fallback needs of a run: the models it may try, which one runs, and the messages every one of them takes. */
interface ChatAttempt extends PreparedChat {
  candidates: PreparedChat[];
  candidate: number;
  /** Fetches an image the conversation refers to, once whichever model takes it. */
  fetchImage: (field: string, url: string) => Promise<{ data: Buffer; mime: string }>;
  request: ChatRequest;
  route: VendorRoute;
  generationId: number;
}

/** A stream whose first step was already read. */
function resumed<E>(first: IteratorResult<E>, it: AsyncIterator<E>): AsyncIterable<E> {
  return (async function* () {
    let ended = false;
    try {
      for (let step = first; !step.done; step = await it.next()) yield step.value;
      ended = true;
    } finally {
      if (!ended) await it.return?.();
    }
  })();
}

/** A stream that fails at once (the answer's accounting then records the failure as for any stream). */
function failing<E>(err: unknown): AsyncIterable<E> {
  return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(err) }) };
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

/**
 * Text chat for /v1/chat/completions, /v1/messages, /v1/responses, /api/v2/generate/stream and the bot: prepare,
 * hold, call the vendor, then settle on the real usage. The money is in `ChatSettlement`, the in-flight bookkeeping
 * in `AnswersInFlight`; this class runs the call and its stream.
 */
export class ChatService {
  private readonly balances: BalanceHints;
  private readonly settlement: ChatSettlement;
  private readonly answers: AnswersInFlight;

  constructor(private readonly deps: ChatServiceDeps) {
    this.balances = deps.balances ?? new BalanceHints();
    this.settlement = new ChatSettlement({ ...deps, balances: this.balances });
    this.answers = new AnswersInFlight(deps.leases, deps.log);
  }

  /** Answers in flight in this process. */
  get openAnswers(): number {
    return this.answers.size;
  }

  /** The account is being deleted: its answers running here are cut, and billed on what they delivered. */
  cutAccount(userId: number): Promise<number> {
    return this.answers.cut(userId);
  }

  /** Whether an answer of the account runs in this process. */
  runsFor(userId: number): boolean {
    return this.answers.runs(userId);
  }

  /** Shutdown: lets open answers finish for up to `graceMs`, then aborts the rest (billed on what was delivered). */
  drain(graceMs: number, billMs?: number): Promise<void> {
    return this.answers.drain(graceMs, billMs);
  }

  /** Whether the model reads PDF documents itself (`file` parts), as its vendor takes them; else they go as text. */
  readsDocuments(model: TextModel): boolean {
    return model.config.supports_vision && this.deps.adapters[model.provider].chat?.supports('pdf', model.upstreamModel) === true;
  }

  /**
   * Everything a run would check before it holds or calls (the model, the key's and the plan's permission, the
   * parameters): what a request that runs later (a background response) is refused for at once. Nothing is held.
   * @throws ParamError and the access errors
   */
  check(actor: Actor, input: ChatInput): TextModel {
    return prepareCandidates(this.deps, actor, input)[0].model;
  }

  /** The prompt's size as the hold estimates it (what a token-counting endpoint answers); nothing is held or counted. */
  countPromptTokens(input: ChatInput): { model: TextModel; promptTokens: number } {
    const { model } = textModelFor(input.model);
    return { model, promptTokens: promptTokensOf(input) };
  }

  /**
   * Checks, counts and holds: the rate check and the hold run at the same time (two round trips in parallel); when
   * the rate limit refuses, or an image cannot be fetched, the hold is withdrawn before the error goes out.
   * With `early`, the vendor call starts once the limits passed (the plan and the key's model list at once, the
   * hourly and daily counts after their quick round trip; a key with a budget waits for its hold), beside the hold,
   * when no image has to be fetched first and the balance this instance last saw clearly covers the hold: the
   * hold's durable commit is then off the answer's path. A hold refused after all aborts that call at once, and
   * nothing is charged; a request refused by a limit never reaches the vendor.
   */
  private async begin<T>(actor: Actor, input: ChatInput, ctx: RequestContext, client: AbortSignal | undefined, early?: EarlyStart<T>) {
    const candidates = prepareCandidates(this.deps, actor, input);
    const prepared = candidates[0]!;
    const route = this.deps.router.route(prepared.model.provider, prepared.model.slug);
    // One hold covers whichever model answers; the answer is billed at that model's price.
    const reserve = Math.max(...candidates.map((c) => c.reserve));
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
      tokensReserved: reserve,
      etaSeconds: prepared.model.etaSeconds,
      delivery: ctx.delivery ?? null,
      sandbox: route.sandbox,
      deadlineAt: new Date(Date.now() + 30 * 60_000),
      apiKeyId: actor.key?.id ?? null,
    };
    // A key with a budget of its own is checked in the hold: no vendor call before that check has passed.
    const covered = early && !client?.aborted && !actor.key?.budgeted && this.balances.covers(actor.user.id, reserve);
    const conversation = reasoningFor(prepared.model.provider, prepared.messages);
    const plain = covered ? withoutImageRefs(conversation) : undefined;
    // When the vendor call goes out beside the hold, its request is written first: the hold statement waits for
    // the turn's check phase, where the vendor client writes a request on a reused connection too.
    const { rated, admitted } = this.settlement.admit(actor, generation, lease, {
      holdAfterTurn: early !== undefined && plain !== undefined,
    });
    // Each image is fetched once, whichever model (or fallback) the conversation goes to.
    const fetched = new Map<string, Promise<{ data: Buffer; mime: string }>>();
    const fetchImage = (field: string, url: string) => {
      let image = fetched.get(`${field}\n${url}`);
      if (!image) fetched.set(`${field}\n${url}`, (image = this.deps.inputs.image(field, url, ctx.ownOrigins)));
      return image;
    };
    const runOf = (request: ChatRequest, opened: { rate: RateDecision; id: number; createdAt: Date }) => ({
      ...prepared,
      reserve,
      route,
      candidates,
      candidate: 0,
      fetchImage,
      request,
      userId: actor.user.id,
      rate: opened.rate,
      generationId: opened.id,
      startedAt: opened.createdAt.getTime(),
    });
    // The hourly and daily limits first: a refusal withdraws the hold (in `admitted`) and nothing was sent.
    if (
      early &&
      plain &&
      (await rated.then(
        () => !client?.aborted,
        () => false,
      ))
    ) {
      const request: ChatRequest = { ...prepared.request, messages: plain };
      const chat = this.deps.adapters[prepared.model.provider].chat!;
      const started = early.start({ chat, request, route, moreToTry: candidates.length > 1 });
      chatEarlyDispatchTotal.inc();
      try {
        return { ...runOf(request, await admitted), started };
      } catch (err) {
        early.abort.abort();
        chatEarlyDispatchRefusedTotal.inc();
        throw err;
      }
    }
    const opened = await admitted;
    let messages: ChatMessage[];
    try {
      this.stillWanted(client, opened.id);
      messages = await resolveImages(conversation, fetchImage);
      this.stillWanted(client, opened.id);
    } catch (err) {
      await this.settlement.withdraw(opened.id);
      throw err;
    }
    return { ...runOf({ ...prepared.request, messages }, opened), started: undefined };
  }

  /**
   * The run on the next fallback model, after `failure` stopped this one before its first byte; undefined when
   * there is none (or the failure would stop any model). The generation names the model that now runs it.
   */
  private async fallBack<R extends ChatAttempt>(run: R, failure: unknown, aborted: boolean): Promise<R | undefined> {
    if (aborted || !movesOn(failure)) return undefined;
    for (let i = run.candidate + 1; i < run.candidates.length; i++) {
      const next = run.candidates[i]!;
      let route: VendorRoute;
      try {
        route = this.deps.router.route(next.model.provider, next.model.slug);
      } catch (err) {
        if (movesOn(err)) continue;
        throw err;
      }
      await this.settlement.switchModel(run.generationId, next.model.slug);
      this.deps.log.info(
        { generationId: run.generationId, from: run.model.slug, to: next.model.slug },
        'chat falls back to the next model',
      );
      const messages = await resolveImages(reasoningFor(next.model.provider, next.messages), run.fetchImage);
      const request = { ...next.request, messages };
      return { ...run, ...next, reserve: run.reserve, route, candidate: i, request } as R;
    }
    return undefined;
  }

  /**
   * Opens the stream of the first model (the request's, then its fallbacks) that sends a first event, and gives it
   * back with that event still to be read. When none does, the last failure is what the stream yields.
   */
  private async firstThatStreams<R extends ChatAttempt & { started?: AsyncIterable<ChatStreamEvent> }>(
    first: R,
    signal: AbortSignal,
  ): Promise<{ run: R; events: AsyncIterable<ChatStreamEvent>; failure?: unknown }> {
    let run = first;
    for (let started = first.started; ; started = undefined) {
      const chat = this.deps.adapters[run.model.provider].chat!;
      const moreToTry = run.candidate < run.candidates.length - 1;
      const events = started ?? run.route.stream(({ conn }) => chat.chatStream(run.request, conn, signal), signal, { moreToTry });
      const it = events[Symbol.asyncIterator]();
      try {
        return { run, events: resumed(await it.next(), it) };
      } catch (err) {
        const next = await this.fallBack(run, err, signal.aborted).catch((dbErr: unknown) => dbErr as Error);
        if (next === undefined || next instanceof Error) return { run, events: failing(next ?? err), failure: next ?? err };
        run = next;
      }
    }
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

  /** A whole answer at once. @throws GenerationFailedError (after releasing the reservation) when the vendor fails. */
  async complete(actor: Actor, input: ChatInput, ctx: RequestContext, signal?: AbortSignal): Promise<ChatOutcome> {
    const abort = new AbortController();
    const onClientAbort = () => abort.abort();
    signal?.addEventListener('abort', onClientAbort, { once: true });
    const begun = await this.begin(actor, input, ctx, signal, {
      abort,
      start: ({ chat, request, route, moreToTry }) => {
        const call = route.call(({ conn }) => chat.chat(request, conn, abort.signal), { moreToTry });
        call.catch(() => undefined);
        return call;
      },
    }).catch((err: unknown) => {
      signal?.removeEventListener('abort', onClientAbort);
      throw err;
    });
    let run = begun;
    const work = (async (): Promise<ChatOutcome> => {
      let result: ChatResult;
      try {
        for (let started = begun.started; ; started = undefined) {
          const chat = this.deps.adapters[run.model.provider].chat!;
          try {
            const moreToTry = run.candidate < run.candidates.length - 1;
            const answer = await (started ?? run.route.call(({ conn }) => chat.chat(run.request, conn, abort.signal), { moreToTry }));
            result = run.shapes.restore(answer);
            break;
          } catch (err) {
            const next = await this.fallBack(run, err, abort.signal.aborted);
            if (!next) throw err;
            run = next;
          }
        }
      } catch (err) {
        await this.settlement.fail(run, err);
        // No connection to the vendor freed in time (or its circuit is open): a 503 with Retry-After, not a failure.
        if (err instanceof ProviderUnavailableError) throw err;
        const kind = err instanceof ProviderError ? err.kind : 'upstream';
        throw new GenerationFailedError(run.generationId, kind, failureMessage(kind, run.model.slug), run.model.slug);
      } finally {
        signal?.removeEventListener('abort', onClientAbort);
      }
      const billing = await this.settlement.settle(run, result.text || toolCallsText(result.toolCalls), result.usage);
      return {
        ...billing,
        model: run.model,
        ...(run.replaced ? { replaced: run.replaced } : {}),
        result,
        rate: run.rate,
        ignored: run.ignored,
      };
    })();
    this.answers.follow(run.generationId, abort, work, undefined, actor.user.id);
    return work;
  }

  /** A streamed answer; billing is reconciled when the stream ends, however it ends. */
  async stream(actor: Actor, input: ChatInput, ctx: RequestContext, signal?: AbortSignal): Promise<ChatStream> {
    const upstreamAbort = new AbortController();
    const onClientAbort = () => upstreamAbort.abort();
    signal?.addEventListener('abort', onClientAbort, { once: true });
    let run = await this.begin(actor, input, ctx, signal, {
      abort: upstreamAbort,
      start: ({ chat, request, route, moreToTry }) =>
        startNow(route.stream(({ conn }) => chat.chatStream(request, conn, upstreamAbort.signal), upstreamAbort.signal, { moreToTry })),
    }).catch((err: unknown) => {
      signal?.removeEventListener('abort', onClientAbort);
      throw err;
    });
    let resolveBilled!: (b: StreamBilling) => void;
    const billed = new Promise<StreamBilling>((r) => (resolveBilled = r));
    let text = '';
    // Tool-call names and argument fragments (and the other answers' text) are completion text too.
    let toolText = '';
    // Reasoning is output the vendor bills: a stream cut off mid-thought is billed on it too.
    let reasoningChars = 0;
    const delivered = () => text.length + toolText.length + reasoningChars;
    this.answers.follow(run.generationId, upstreamAbort, billed, delivered, actor.user.id);
    // The first event is awaited before the answer opens: the model that serves (with fallbacks) is named from the
    // start, and a vendor whose every connection stayed busy is refused with a 503 rather than a stream that waits.
    // The bot places its reply before it reads the stream, so with one model the vendor is called only once that
    // reply stands (a user who blocked the bot costs nothing).
    const openOnFirstEvent = run.candidates.length > 1 || ctx.source !== 'bot';
    const served = openOnFirstEvent && !upstreamAbort.signal.aborted ? await this.firstThatStreams(run, upstreamAbort.signal) : undefined;
    if (served) run = served.run;
    if (served?.failure instanceof ProviderUnavailableError) {
      signal?.removeEventListener('abort', onClientAbort);
      resolveBilled({ ...(await this.settlement.fail(run, served.failure)), failed: true });
      throw served.failure;
    }
    const chat = this.deps.adapters[run.model.provider].chat!;
    const started = served?.events ?? run.started;
    const self = this;

    async function* events(): AsyncGenerator<ChatStreamEvent> {
      let progressNoted = false;
      let usage: ChatUsage | undefined;
      let finish: FinishReason | undefined;
      let failure: unknown;
      if (!started && upstreamAbort.signal.aborted) {
        // Gone between the hold and the first read of the stream: the vendor is not called, the hold withdrawn.
        signal?.removeEventListener('abort', onClientAbort);
        await self.settlement.withdraw(run.generationId);
        resolveBilled({ generationId: run.generationId, tokensSpent: 0, failed: true });
        return;
      }
      try {
        const events = run.shapes.restoreStream(
          started ?? run.route.stream(({ conn }) => chat.chatStream(run.request, conn, upstreamAbort.signal), upstreamAbort.signal),
        );
        for await (const ev of events) {
          // The first answer is the generation's text; the others (`n` > 1) are measured too, for a cut-off stream.
          if (ev.type === 'delta') {
            if (ev.choice) toolText += ev.text;
            else text += ev.text;
          } else if (ev.type === 'tool_call') toolText += (ev.name ?? '') + ev.arguments;
          else if (ev.type === 'reasoning_delta') reasoningChars += ev.text.length;
          else if (ev.type === 'usage') usage = ev.usage;
          else if (ev.type === 'finish') finish = ev.finishReason;
          // The first output is on its way to the client: its length goes to the lease now (before the bytes), so a
          // process killed from here on is billed for what it delivered; the heartbeat keeps it current afterwards.
          if (!progressNoted && delivered() > 0) {
            progressNoted = true;
            self.answers.noteProgress(run.generationId, delivered());
          }
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
        let billing: StreamBilling;
        if (failure !== undefined) {
          billing = { ...(await self.settlement.fail(run, failure)), failed: true };
        } else {
          // Without the vendor's count (cut off, or none sent) the delivered text is measured instead.
          const measured: ChatUsage = {
            promptTokens: run.promptTokens,
            completionTokens: Math.ceil((text.length + toolText.length + reasoningChars) / CHARS_PER_TOKEN),
          };
          const billedOn = cutOff || !usage ? measured : usage;
          const settled = await self.settlement.settle(run, text || toolText, billedOn);
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
