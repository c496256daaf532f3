// The spec's Generation object, as /api/v2 renders a generation record (every route: generate, poll, history, stt,
// inpaint).
import { resultUrl } from '../../core/generations/result-url';
import type { LinkOrigins } from '../../core/links/link-origins';
import type { GenerationRecord } from '../../core/records';
import type { HistoryItem, HistoryPage } from '../../core/stats/history';
import { type GenerationWarning, modelReplaced, readWarnings } from '../../core/warnings';

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

export function toGenerationView(g: GenerationRecord, links: LinkOrigins): GenerationView {
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
function replacementWarnings(g: GenerationRecord): GenerationWarning[] {
  const replaced = (g.params as { replacedFrom?: { slug?: unknown; shutdownAt?: unknown } } | null)?.replacedFrom;
  if (!replaced || typeof replaced.slug !== 'string') return [];
  const shutdownAt = typeof replaced.shutdownAt === 'string' ? replaced.shutdownAt : null;
  return [modelReplaced(replaced.slug, g.modelSlug, shutdownAt)];
}

/** A request-log entry: the Generation object, the door it came in through, the key it used, what was asked, a chat's model tokens. */
export function toHistoryItemBody(item: HistoryItem, links: LinkOrigins) {
  const { usage } = item;
  return {
    ...toGenerationView(item.generation, links),
    door: item.door,
    api_key_id: item.generation.apiKeyId ?? null,
    prompt: item.prompt,
    usage: usage && { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, cached_tokens: usage.cachedTokens },
  };
}

export function toHistoryPageBody(page: HistoryPage, links: LinkOrigins) {
  return { items: page.items.map((item) => toHistoryItemBody(item, links)), next_cursor: page.nextCursor };
}
