import { GenerationEntity } from '../../db/entities';
import { linkBase, LinkOrigins } from '../links/link-origins';
import { type GenerationWarning, modelReplaced, readWarnings } from '../warnings';
import { isRowId } from '../row-ids';

/** The spec's Generation object: one shape on every route (generate, poll, history, stt, inpaint). */
export interface GenerationView {
  id: number;
  status: 'pending' | 'completed' | 'failed';
  model_slug: string;
  category: string;
  result_url: string | null;
  result_text: string | null;
  error: string | null;
  tokens_spent: number;
  processing_ms: number | null;
  seed?: number;
  result_metadata?: Record<string, unknown>;
  /** Options of the request the model's vendor does not take and that were left out (additive to the spec). */
  warnings?: GenerationWarning[];
  eta_seconds?: number;
  created_at: string;
  completed_at: string | null;
  type?: 'audio';
  duration_seconds?: number;
  sandbox?: boolean;
  /** When its owner deleted it: the result, text and prompt are gone (additive to the spec). */
  deleted_at?: string;
  // Music results also carry the spec example's field names, with the same values.
  model?: string;
  output_url?: string | null;
  tokens_used?: number;
}

const AUDIO_CATEGORIES = new Set(['music', 'tts']);

/**
 * `result_url` is `<base>/files/<key>`, served by the service itself (410 once retention removed it); the base is
 * the generation's own (core/links), so every surface shows the same URL.
 */
export function resultUrl(links: LinkOrigins, g: Pick<GenerationEntity, 'resultKey' | 'linkOrigin'>): string | null {
  return g.resultKey ? `${linkBase(links, g.linkOrigin)}/files/${g.resultKey}` : null;
}

export function toGenerationView(g: GenerationEntity, links: LinkOrigins): GenerationView {
  const view: GenerationView = {
    id: g.id,
    status: g.status,
    model_slug: g.modelSlug,
    category: g.category,
    result_url: g.userDeletedAt ? null : resultUrl(links, g),
    result_text: g.resultText ?? null,
    error: g.error ?? null,
    tokens_spent: g.tokensSpent ?? 0,
    processing_ms: g.processingMs ?? null,
    created_at: g.createdAt.toISOString(),
    completed_at: g.completedAt ? g.completedAt.toISOString() : null,
  };
  if (g.seed !== null && g.seed !== undefined) view.seed = g.seed;
  const { warnings, ...metadata } = g.resultMetadata ?? {};
  if (Object.keys(metadata).length > 0) view.result_metadata = metadata;
  const told = [...replacementWarnings(g), ...readWarnings(warnings)];
  if (told.length > 0) view.warnings = told;
  if (g.status === 'pending') view.eta_seconds = Math.max(1, g.etaSeconds ?? 5);
  if (g.sandbox) view.sandbox = true;
  if (g.userDeletedAt) view.deleted_at = g.userDeletedAt.toISOString();
  if (AUDIO_CATEGORIES.has(g.category)) {
    view.type = 'audio';
    if (g.durationSeconds !== null && g.durationSeconds !== undefined) view.duration_seconds = g.durationSeconds;
  }
  if (g.category === 'music') {
    view.model = g.modelSlug;
    view.output_url = view.result_url;
    view.tokens_used = g.tokensSpent;
  }
  return view;
}

/** A generation served by the replacement of the retired model its request named says so. */
function replacementWarnings(g: GenerationEntity): GenerationWarning[] {
  const replaced = (g.params as { replacedFrom?: { slug?: unknown; shutdownAt?: unknown } } | null)?.replacedFrom;
  if (!replaced || typeof replaced.slug !== 'string') return [];
  const shutdownAt = typeof replaced.shutdownAt === 'string' ? replaced.shutdownAt : null;
  return [modelReplaced(replaced.slug, g.modelSlug, shutdownAt)];
}

/** Accepts `42` and the music example's `gen_42`. */
export function parseGenerationId(raw: string): number | null {
  const m = /^(?:gen_)?(\d{1,10})$/.exec(raw);
  if (!m) return null;
  const id = Number(m[1]);
  return isRowId(id) ? id : null;
}
