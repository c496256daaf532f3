import { z } from 'zod';

/** At most this many models in one request's `models` list (OpenRouter's own routing takes a handful). */
export const MAX_FALLBACK_MODELS = 5;

/**
 * OpenRouter's `models`: models to try, in order, when `model` cannot serve before its first byte (an outage, an
 * overload, a retirement). The answer's `model` names the one that served.
 */
export const fallbackModels = z
  .array(z.string().trim().min(1, 'a model id must not be empty'))
  .min(1)
  .max(MAX_FALLBACK_MODELS)
  .describe('models to try in order when `model` cannot serve before its first byte (outage, overload, retirement)');

/** The core's fallbacks: `models` after `model`, each once. */
export function fallbacksOf(model: string, models: readonly string[] | null | undefined): { fallbacks?: string[] } {
  const rest = [...new Set(models ?? [])].filter((m) => m !== model);
  return rest.length > 0 ? { fallbacks: rest } : {};
}
