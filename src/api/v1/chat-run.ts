import type { ParameterizedContext } from 'koa';
import type { ChatInput, ChatOutcome, ChatStream } from '../../core/generations/chat/types';
import type { RateDecision } from '../../core/limits/rate-limiter';
import type { ApiServices } from '../api-services';
import { clientSignal } from '../client-signal';
import { actorOf } from '../middleware/auth';
import { announceReplacement } from '../model-replaced';
import { applyRateLimitHeaders } from '../middleware/rate-limit-headers';
import { openSse, SseChannel } from '../sse';
import { ownOrigins } from '../v2/public-url';
import { WireNames, wireName } from './wire-names';

// The one path every /v1 surface (chat completions, responses, messages) takes to run a chat: the same actor,
// limits, hold and settlement, whatever the wire format. The surfaces only translate requests and answers.

export type ChatRunServices = Pick<ApiServices, 'chat' | 'config'>;

function requestContext(ctx: ParameterizedContext, services: ChatRunServices) {
  return { source: 'v1' as const, ownOrigins: ownOrigins(ctx, services.config) };
}

function applyRate(ctx: ParameterizedContext, rate: RateDecision): void {
  applyRateLimitHeaders(ctx, rate);
  ctx.set('X-RateLimit-Limit', String(rate.limitHour));
}

/** Names the request parameters the model did not take (labels and hints it has no equivalent for), in the surface's words. */
function setIgnoredParameters(ctx: ParameterizedContext, ignored: readonly string[], names: WireNames, atDoor: readonly string[]): void {
  const all = [...ignored.map((p) => wireName(names, p)), ...atDoor];
  if (all.length > 0) ctx.set('X-Ignored-Parameters', all.join(', '));
}

/** A whole answer; sets the rate headers, X-Token-Balance and (a retired model's replacement answered) X-Model-Replaced. */
export async function completeChat(
  ctx: ParameterizedContext,
  services: ChatRunServices,
  input: ChatInput,
  names: WireNames = {},
  /** Parameters the surface itself takes and does not act on (named after the model's). */
  ignoredAtDoor: readonly string[] = [],
): Promise<ChatOutcome> {
  // The client leaving before the vendor call means no call and no charge; after it, the call is aborted.
  const out = await services.chat.complete(actorOf(ctx), input, requestContext(ctx, services), clientSignal(ctx));
  announceReplacement(ctx, out.replaced, out.model.slug);
  applyRate(ctx, out.rate);
  setIgnoredParameters(ctx, out.ignored, names, ignoredAtDoor);
  if (out.balance !== undefined) ctx.set('X-Token-Balance', String(out.balance));
  return out;
}

/**
 * A streamed answer: refusals (limits, balance, bad input) are thrown before the event stream opens, so they go
 * out as ordinary error answers. The client leaving before the vendor call means no call and no charge; after it,
 * the upstream request is aborted.
 */
export async function streamChat(
  ctx: ParameterizedContext,
  services: ChatRunServices,
  input: ChatInput,
  names: WireNames = {},
  ignoredAtDoor: readonly string[] = [],
): Promise<{ stream: ChatStream; sse: SseChannel }> {
  const stream = await services.chat.stream(actorOf(ctx), input, requestContext(ctx, services), clientSignal(ctx));
  announceReplacement(ctx, stream.replaced, stream.model.slug);
  applyRate(ctx, stream.rate);
  setIgnoredParameters(ctx, stream.ignored, names, ignoredAtDoor);
  return { stream, sse: openSse(ctx) };
}

/** The billing object the /v1 answers carry next to the wire format's own fields. */
export function serviceObject(billing: { tokensSpent?: number; balance?: number }): Record<string, number> {
  const out: Record<string, number> = {};
  if (billing.tokensSpent !== undefined) out.tokens_spent = billing.tokensSpent;
  if (billing.balance !== undefined) out.balance = billing.balance;
  return out;
}
