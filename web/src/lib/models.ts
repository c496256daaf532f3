/** What the playground needs from a catalog entry. */
export interface ModelInfo {
  slug: string;
  name: string;
  category: string;
  min_plan: string;
  config: Record<string, unknown>;
}

const PLAN_LEVEL: Record<string, number> = { free: 0, basic: 1, pro: 2, vip: 3, elite: 4 };

export interface ModelChoice {
  slug: string;
  name: string;
  /** The plan needed when the account's plan is lower; null when the model is usable. */
  lockedUntil: string | null;
}

/** The models of `categories`, usable ones first (catalog order kept), each marked with the plan it needs. */
export function modelChoices(models: ModelInfo[], categories: readonly string[], plan: string): ModelChoice[] {
  const level = PLAN_LEVEL[plan] ?? 0;
  const choices = models
    .filter((m) => categories.includes(m.category))
    .map((m) => ({ slug: m.slug, name: m.name, lockedUntil: (PLAN_LEVEL[m.min_plan] ?? 0) > level ? m.min_plan : null }));
  return [...choices.filter((c) => !c.lockedUntil), ...choices.filter((c) => c.lockedUntil)];
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Sizes and formats an image model accepts (`config.sizes`, `config.formats`), with the documented defaults. */
export function imageOptions(model: ModelInfo | undefined): { sizes: string[]; formats: string[] } {
  const sizes = stringList(model?.config.sizes);
  const formats = stringList(model?.config.formats);
  return { sizes: sizes.length ? sizes : ['1024x1024'], formats: formats.length ? formats : ['webp', 'png', 'jpeg'] };
}

/** How a generation's result is shown: a picture, a player, or text. */
export function resultKind(
  category: string,
  resultUrl: string | null,
  resultText: string | null,
): 'image' | 'video' | 'audio' | 'text' | 'none' {
  if (resultUrl) {
    if (category === 'video') return 'video';
    if (category === 'tts' || category === 'music') return 'audio';
    if (category === 'image' || category === 'tool') return 'image';
  }
  return resultText ? 'text' : 'none';
}
