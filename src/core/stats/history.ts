import { DataSource } from 'typeorm';
import { GenerationEntity, GenerationStatus } from '../../db/entities/generation.entity';
import { Category, ParamError } from '../catalog';
import type { GenerationRecord } from '../records';
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

/** A text model's own token counts for one answer (what its tokens spent were priced from). */
export interface ModelTokenUsage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

/**
 * A request-log entry: the generation, the door it came in through, what was asked, and a chat's model tokens
 * (the doors render it: the API's history item is the Generation object with these beside it).
 */
export interface HistoryItem {
  generation: GenerationRecord;
  door: Door;
  prompt: string | null;
  usage: ModelTokenUsage | null;
}

/** A chat answer's usage as its settlement stored it (camelCase counts in result_metadata), or null. */
function modelTokenUsage(g: GenerationEntity): ModelTokenUsage | null {
  const m = g.resultMetadata as { promptTokens?: unknown; completionTokens?: unknown; cachedTokens?: unknown } | null;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
  if (g.category !== 'text' || !m || typeof m.promptTokens !== 'number') return null;
  return { inputTokens: n(m.promptTokens), outputTokens: n(m.completionTokens), cachedTokens: n(m.cachedTokens) };
}

/** The request-log entry of a generation row. */
export function toHistoryItem(g: GenerationEntity): HistoryItem {
  return { generation: g, door: doorOf(g), prompt: g.prompt ?? null, usage: modelTokenUsage(g) };
}

export interface HistoryPage<T = HistoryItem> {
  items: T[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
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

/** A history entry for the bot: the generation plus the start of its prompt (to label it). */
export interface HistoryEntry {
  generation: GenerationRecord;
  prompt: string | null;
}

export type HistoryEntryPage = HistoryPage<HistoryEntry>;

async function historyRows(
  ds: DataSource,
  userId: number,
  query: HistoryQuery,
): Promise<{ rows: GenerationEntity[]; next: string | null }> {
  const limit = Math.min(Math.max(query.limit ?? HISTORY_DEFAULT_LIMIT, 1), HISTORY_MAX_LIMIT);
  const repo = ds.getRepository(GenerationEntity);
  // The page's ids first, from the user's history index alone (it carries every filtered column), then the rows:
  // asked for whole rows at once, the planner may walk the primary key backwards through other users' rows.
  const ids = repo.createQueryBuilder('g').select('g.id').where('g.user_id = :userId', { userId });
  if (query.category) ids.andWhere('g.category = :category', { category: query.category });
  if (query.model) ids.andWhere('g.model_slug = :model', { model: query.model });
  if (query.status) ids.andWhere('g.status = :status', { status: query.status });
  if (query.door) ids.andWhere(DOOR_CONDITION[query.door]);
  if (query.keyId !== undefined) ids.andWhere('g.api_key_id = :keyId', { keyId: query.keyId });
  if (query.onlyKey !== undefined) ids.andWhere('g.api_key_id = :onlyKey', { onlyKey: query.onlyKey });
  if (query.from) ids.andWhere('g.created_at >= :from', { from: query.from });
  if (query.to) ids.andWhere('g.created_at < :to', { to: query.to });
  if (query.cursor) ids.andWhere('g.id < :before', { before: decodeCursor(query.cursor) });
  if (query.excludeDeleted) ids.andWhere('g.user_deleted_at IS NULL');
  ids.orderBy('g.id', 'DESC').limit(limit + 1);
  const rows = await repo
    .createQueryBuilder('row')
    .where(`row.id IN (${ids.getQuery()})`)
    .setParameters(ids.getParameters())
    .orderBy('row.id', 'DESC')
    .getMany();
  const page = rows.slice(0, limit);
  return { rows: page, next: rows.length > limit ? encodeCursor(page[page.length - 1].id) : null };
}

/** One page of the caller's own generations, newest first. */
export async function listHistory(ds: DataSource, userId: number, query: HistoryQuery): Promise<HistoryPage> {
  const { rows, next } = await historyRows(ds, userId, query);
  return { items: rows.map(toHistoryItem), nextCursor: next };
}

const PROMPT_LABEL_CHARS = 200;

/** listHistory with the start of each prompt (the API's history entry has no prompt field). */
export async function listHistoryEntries(ds: DataSource, userId: number, query: HistoryQuery): Promise<HistoryEntryPage> {
  const { rows, next } = await historyRows(ds, userId, query);
  return { items: rows.map((g) => ({ generation: g, prompt: g.prompt ? g.prompt.slice(0, PROMPT_LABEL_CHARS) : null })), nextCursor: next };
}
