import type { ParameterizedContext } from 'koa';
import type { ApiServices } from '../api-services';
import type { AuthContext } from './auth';
import type { ErrorDescription } from './errors';
import { parsedJsonBody } from './json-body';

/** The answers that refuse a caller before anything ran: plan or key scope, money, limits. */
const REFUSAL_STATUSES = new Set([402, 403, 429]);

/** Who was refused: the authenticated caller, or the owner of an API key refused for its plan (auth.ts). */
function callerOf(ctx: ParameterizedContext): { userId: number; keyId: number | null } | null {
  const auth = ctx.state.auth as AuthContext | undefined;
  if (auth) return { userId: auth.userId, keyId: auth.keyId ?? null };
  const refused = ctx.state.refusedCaller as { userId: number; keyId: number } | undefined;
  return refused ? { userId: refused.userId, keyId: refused.keyId } : null;
}

/** The model the refused call's JSON body asked for, when it named one. */
function modelOf(ctx: ParameterizedContext): string | null {
  const body = parsedJsonBody(ctx) as { model?: unknown } | undefined;
  return typeof body?.model === 'string' && body.model.length > 0 && body.model.length <= 100 ? body.model : null;
}

/**
 * Hands every refusal of a known account to the request log (core/stats/refusals.ts, written in batches off the
 * request path). Anonymous refusals (per-address sign-in limits) belong to no account and are not kept.
 */
export function recordRefusals(services: Pick<ApiServices, 'refusals'>): (ctx: ParameterizedContext, d: ErrorDescription) => void {
  return (ctx, d) => {
    if (!REFUSAL_STATUSES.has(d.status)) return;
    const caller = callerOf(ctx);
    if (!caller) return;
    services.refusals.record({
      userId: caller.userId,
      door: caller.keyId === null ? 'web' : 'api',
      apiKeyId: caller.keyId,
      route: `${ctx.method} ${ctx.path}`,
      modelSlug: modelOf(ctx),
      status: d.status,
      error: d.code,
      message: d.message,
    });
  };
}
