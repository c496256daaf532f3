// Lookups over the catalog, access by plan, and the public Model object.
import { UnknownModelError } from './errors';
import { DEFAULT_STT_MODEL_SLUG, MODELS, type ToolSlug } from './models';
import { isRetired, lifecycleOf } from './lifecycle';
import { baseTokenCost, perMillionPrices, priceRange } from './pricing';
import { PLAN_LEVEL, type Category, type ModelDefinition, type PlanSlug, type PublicModel, type SttModel, type ToolModel } from './types';

export { UnknownModelError } from './errors';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

// Callers share these objects; freezing makes an accidental mutation throw instead of changing prices.
deepFreeze(MODELS);
const BY_SLUG: ReadonlyMap<string, ModelDefinition> = new Map(MODELS.map((m) => [m.slug, m]));

export interface ModelFilter {
  category?: Category;
  /**
   * GET /api/v2/models `min_plan`: read as "models available at that plan", i.e. every model whose
   * minimum plan level is <= the given plan's level (`free` gives the 19 Starter-tier models, `basic`
   * and above all 52). The spec only names the parameter; this is what a client filtering by its own
   * plan expects, while an exact-match reading would hide Starter models from paying users.
   */
  minPlan?: PlanSlug;
}

/** Models in service, in catalog order, optionally filtered (retired models are hidden: see lifecycle.ts). */
export function listModels(filter: ModelFilter = {}): readonly ModelDefinition[] {
  const now = new Date();
  return MODELS.filter(
    (m) =>
      !isRetired(m.slug, now) &&
      (filter.category === undefined || m.category === filter.category) &&
      (filter.minPlan === undefined || PLAN_LEVEL[m.minPlan] <= PLAN_LEVEL[filter.minPlan]),
  );
}

export function findModel(slug: string): ModelDefinition | undefined {
  return BY_SLUG.get(slug);
}

/** A tool of the catalog by its slug (the type guarantees there is one). */
export function toolModel(slug: ToolSlug): ToolModel {
  const model = requireModel(slug);
  if (model.category !== 'tool') throw new Error(`${slug} is not a tool`);
  return model;
}

/** Whether the model's image results are handed over as files, untouched (a tool rule: upscale, remove-bg). */
export function resultAsDocument(slug: string): boolean {
  const model = BY_SLUG.get(slug);
  return model?.category === 'tool' && model.rules.resultAsDocument;
}

/** @throws UnknownModelError */
export function requireModel(slug: string): ModelDefinition {
  const model = BY_SLUG.get(slug);
  if (!model) throw new UnknownModelError(slug);
  return model;
}

/** The STT model used when POST /api/v2/stt names none. */
export function defaultSttModel(): SttModel {
  const model = requireModel(DEFAULT_STT_MODEL_SLUG);
  if (model.category !== 'stt') throw new Error(`${DEFAULT_STT_MODEL_SLUG} is not an STT model`);
  return model;
}

export function canUseModel(plan: PlanSlug, model: ModelDefinition): boolean {
  return PLAN_LEVEL[plan] >= PLAN_LEVEL[model.minPlan];
}

/** The lowest plan that may use the model (for "Insufficient plan" messages). */
export function requiredPlanFor(model: ModelDefinition): PlanSlug {
  return model.minPlan;
}

/** The API's Model object. */
export function toPublicModel(model: ModelDefinition): PublicModel {
  const range = priceRange(model);
  return {
    slug: model.slug,
    name: model.name,
    category: model.category,
    provider: model.provider,
    token_cost: baseTokenCost(model),
    min_token_cost: range.min,
    max_token_cost: range.max,
    min_plan: model.minPlan,
    min_plan_slug: model.minPlan === 'free' ? null : model.minPlan,
    description_en: model.descriptionEn,
    supports_streaming: model.supportsStreaming,
    // A copy, so a caller editing the response cannot reach the (frozen) catalog.
    config: structuredClone(model.config),
    ...lifecycleFields(model.slug, model.upstreamModel),
    ...(model.category === 'text' ? { price_per_million_tokens: perMillionPrices(model) } : {}),
  };
}

/** The four lifecycle fields of the Model object (GET /api/v2/models, GET /v1/models/{id}). */
export function lifecycleFields(
  slug: string,
  upstreamId: string,
): { upstream_id: string; deprecated_at: string | null; shutdown_at: string | null; replacement: string | null } {
  const l = lifecycleOf(slug);
  return {
    upstream_id: upstreamId,
    deprecated_at: l?.deprecatedAt ?? null,
    shutdown_at: l?.shutdownAt ?? null,
    replacement: l?.replacement ?? null,
  };
}
