// The door-neutral generate request and its normalisation for one catalog model. Each door parses its own wire
// format into a GenerateRequest (the HTTP door: src/api/v2/generate-body.ts; the bot: its wizards); the model's
// rules (normalize/) decide which options apply. An option the model does not take is an error naming the field
// as the API calls it (never silently ignored, so a client learns its request was not what it meant).
import { ModelRetiredError } from './errors';
import { resolveModel } from './lifecycle';
import type { GenerateCommand } from './command';
import { normalizeForModel } from './normalize/by-category';
import type { GenerateRequest, NormalizedParams } from './request';
import type { ModelDefinition } from './types';

export { ParamError } from './errors';
export type { GenerateRequest, ImageSource, NormalizedParams } from './request';
export { MAX_PROMPT_LENGTH } from './limits';

/**
 * The request as a command: model lookup (a retired model resolves to its replacement, `replaced`) and the
 * model's rules. @throws ParamError, UnknownModelError, ModelRetiredError
 */
export function commandFromRequest<F = never>(request: GenerateRequest<F>): GenerateCommand<F> {
  const slugs = [...new Set([request.model, ...(request.fallbacks ?? [])])];
  if (slugs.length === 1) return commandForModel(request, request.model);
  // Each fallback must take the request; a retired one (without a replacement) is left out, as long as one serves.
  const commands: GenerateCommand<F>[] = [];
  let retired: unknown;
  for (const slug of slugs) {
    try {
      commands.push(commandForModel(request, slug));
    } catch (err) {
      if (!(err instanceof ModelRetiredError)) throw err;
      retired ??= err;
    }
  }
  const [first, ...fallbacks] = commands;
  if (!first) throw retired;
  if (fallbacks.length === 0) return first;
  return { ...first, fallbacks: fallbacks.map(({ model, replaced, params }) => ({ model, params, ...(replaced ? { replaced } : {}) })) };
}

function commandForModel<F>(request: GenerateRequest<F>, slug: string): GenerateCommand<F> {
  const { model, replacedFrom, shutdownAt } = resolveModel(slug);
  const replaced = replacedFrom !== undefined ? { from: replacedFrom, shutdownAt: shutdownAt ?? null } : undefined;
  return { model, ...normalizeForModel(model, request), ...(replaced ? { replaced } : {}) };
}

/** The model's rules on a request's options (the price check's view: no model lookup). @throws ParamError */
export function normalizeGenerateParams(model: ModelDefinition, request: GenerateRequest<unknown>): NormalizedParams {
  return normalizeForModel(model, request).params;
}
