import { DataSource } from 'typeorm';
import { GenerationEntity, GenerationStatus } from '../../db/entities/generation.entity';
import { Category, ParamError } from '../catalog';
import { GenerationView, toGenerationView } from '../generations/views';
import type { LinkOrigins } from '../links/link-origins';
import { Door, doorOf } from './doors';
import { isRowId } from '../row-ids';

export const HISTORY_DEFAULT_LIMIT = 20;

const DOOR_CONDITION: Record<Door, string> = {
  web: "g.source IN ('api', 'v1') AND g.api_key_id IS NULL",
  api: "g.source IN ('api', 'v1') AND g.api_key_id IS NOT NULL",
  bot: "g.source = 'bot'",
  schedule: "g.source = 'schedule'",
};
export const HISTORY_MAX_LIMIT = 100;

export interface HistoryQuery {
  category?: Category;
  model?: string;
  status?: GenerationStatus;
  door?: Door;
  /** Only requests made with this API key. */
  keyId?: number;
  /** The reader is a restricted API key: only what it made itself, whatever the other filters say. */
  onlyKey?: number;
  /** Inclusive lower bound on created_at. */
  from?: Date;
  /** Exclusive upper bound on created_at. */
  to?: Date;
  cursor?: string;
  limit?: number;
  /** Leave out what the owner deleted (the dashboard's history); the request log keeps them. */
  excludeDeleted?: boolean;
}

/** A text model's own token counts for one answer (what `tokens_spent` was priced from). */
export interface ModelTokenUsage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
}

/**
 * A request-log entry: the Generation object, the door it came in through, the API key it used, what was asked,
 * and a chat's model tokens.
 */
export type HistoryItem = GenerationView & {
  door: Door;
  api_key_id: number | null;
  prompt: string | null;
  usage: ModelTokenUsage | null;
};

/** A chat answer's usage as its settlement stored it (camelCase counts in result_metadata), or null. */
function modelTokenUsage(g: GenerationEntity): ModelTokenUsage | null {
  const m = g.resultMetadata as { promptTokens?: unknown; completionTokens?: unknown; cachedTokens?: unknown } | null;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
  if (g.category !== 'text' || !m || typeof m.promptTokens !== 'number') return null;
  return { input_tokens: n(m.promptTokens), output_tokens: n(m.completionTokens), cached_tokens: n(m.cachedTokens) };
}

/** The request-log entry of a generation row. */
export function toHistoryItem(g: GenerationEntity, links: LinkOrigins): HistoryItem {
  return {
    ...toGenerationView(g, links),
    door: doorOf(g),
    api_key_id: g.apiKeyId ?? null,
    prompt: g.prompt ?? null,
    usage: modelTokenUsage(g),
  };
}

export interface HistoryPage {
  items: HistoryItem[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

// The cursor is opaque to clients: the id of the last row of the page, encoded.
export function encodeCursor(id: number): string {
  return Buffer.from(`g:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const m = /^g:(\d{1,10})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const id = m ? Number(m[1]) : NaN;
  if (!isRowId(id)) throw new ParamError('cursor', 'cursor is not valid: pass the next_cursor of the previous page');
  return id;
}

/** A history entry for the bot: the Generation object plus the start of its prompt (to label it). */
export type HistoryEntry = GenerationView & { prompt: string | null };

export interface HistoryEntryPage {
  items: HistoryEntry[];
  next_cursor: string | null;
}

async function historyRows(
  ds: DataSource,
  userId: number,
  query: HistoryQuery,
): Promise<{ rows: GenerationEntity[]; next: string | null }> {
  const limit = Math.min(Math.max(query.limit ?? HISTORY_DEFAULT_LIMIT, 1), HISTORY_MAX_LIMIT);
  const qb = ds.getRepository(GenerationEntity).createQueryBuilder('g').where('g.user_id = :userId', { userId });
  if (query.category) qb.andWhere('g.category = :category', { category: query.category });
  if (query.model) qb.andWhere('g.model_slug = :model', { model: query.model });
  if (query.status) qb.andWhere('g.status = :status', { status: query.status });
  if (query.door) qb.andWhere(DOOR_CONDITION[query.door]);
  if (query.keyId !== undefined) qb.andWhere('g.api_key_id = :keyId', { keyId: query.keyId });
  if (query.onlyKey !== undefined) qb.andWhere('g.api_key_id = :onlyKey', { onlyKey: query.onlyKey });
  if (query.from) qb.andWhere('g.created_at >= :from', { from: query.from });
  if (query.to) qb.andWhere('g.created_at < :to', { to: query.to });
  if (query.cursor) qb.andWhere('g.id < :before', { before: decodeCursor(query.cursor) });
  if (query.excludeDeleted) qb.andWhere('g.user_deleted_at IS NULL');
  const rows = await qb
    .orderBy('g.id', 'DESC')
    .limit(limit + 1)
    .getMany();
  const page = rows.slice(0, limit);
  return { rows: page, next: rows.length > limit ? encodeCursor(page[page.length - 1].id) : null };
}

/** One page of the caller's own generations, newest first. */
export async function listHistory(ds: DataSource, userId: number, query: HistoryQuery, links: LinkOrigins): Promise<HistoryPage> {
  const { rows, next } = await historyRows(ds, userId, query);
  return {
    items: rows.map((g) => toHistoryItem(g, links)),
    next_cursor: next,
  };
}

const PROMPT_LABEL_CHARS = 200;

/** listHistory with the start of each prompt (the API's history entry has no prompt field). */
export async function listHistoryEntries(
  ds: DataSource,
  userId: number,
  query: HistoryQuery,
  links: LinkOrigins,
): Promise<HistoryEntryPage> {
  const { rows, next } = await historyRows(ds, userId, query);
  return {
    items: rows.map((g) => ({ ...toGenerationView(g, links), prompt: g.prompt ? g.prompt.slice(0, PROMPT_LABEL_CHARS) : null })),
    next_cursor: next,
  };
}
