import type { ParameterizedContext } from 'koa';

export const MODEL_REPLACED_HEADER = 'X-Model-Replaced';

/**
 * A request for a retired model that its replacement served says so: `X-Model-Replaced: <old>-><new>` (the body's
 * `model`, and the generation's `warnings`, name the replacement too). Every door that runs a model sets it here.
 */
export function announceReplacement(ctx: ParameterizedContext, replaced: { from: string } | undefined, served: string): void {
  if (replaced) ctx.set(MODEL_REPLACED_HEADER, `${replaced.from}->${served}`);
}
