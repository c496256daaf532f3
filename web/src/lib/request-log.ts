import { api, unwrap } from '../api/client';
import type { components, paths } from '../api/schema';

export type LogEntry = components['schemas']['HistoryEntry'];
export type LogQuery = NonNullable<paths['/api/v2/user/history']['get']['parameters']['query']>;

export interface LogFilters {
  model: string;
  door: LogQuery['door'] | '';
  key: string;
  status: LogQuery['status'] | '';
  /** YYYY-MM-DD, UTC, both ends included; '' for open. */
  from: string;
  to: string;
}

export const EMPTY_FILTERS: LogFilters = { model: '', door: '', key: '', status: '', from: '', to: '' };

/** The history query for the filters: whole UTC days, the `to` day included. */
export function logQuery(filters: LogFilters, limit: number, cursor?: string | null): LogQuery {
  const next = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString();
  return {
    limit,
    ...(filters.model ? { model: filters.model } : {}),
    ...(filters.door ? { door: filters.door } : {}),
    ...(filters.key ? { key: Number(filters.key) } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.from ? { from: `${filters.from}T00:00:00Z` } : {}),
    ...(filters.to ? { to: next(filters.to) } : {}),
    ...(cursor ? { cursor } : {}),
  };
}

const CSV_COLUMNS = [
  'id',
  'created_at',
  'door',
  'api_key_id',
  'api_key',
  'model',
  'category',
  'status',
  'cost_tkn',
  'model_tokens_in',
  'model_tokens_out',
  'model_tokens_cached',
  'latency_ms',
  'error',
] as const;

/** One CSV field: quoted when it holds a comma, quote or line break; a leading =, +, - or @ cannot start a formula. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The entries as CSV (RFC 4180, CRLF line ends), one row per request, with a header row: cost in tkn, the model's own tokens. */
export function toCsv(entries: LogEntry[], keyName: (id: number) => string): string {
  const rows = entries.map((e) =>
    [
      e.id,
      e.created_at,
      e.door,
      e.api_key_id,
      e.api_key_id === null ? null : keyName(e.api_key_id),
      e.model_slug,
      e.category,
      e.status,
      e.tokens_spent,
      e.usage?.input_tokens ?? null,
      e.usage?.output_tokens ?? null,
      e.usage?.cached_tokens ?? null,
      e.processing_ms,
      e.error,
    ].map(csvField),
  );
  return [CSV_COLUMNS.join(','), ...rows.map((r) => r.join(','))].join('\r\n') + '\r\n';
}

/** Every entry matching the filters, read page by page from the API (at most `max`). */
export async function fetchAll(filters: LogFilters, max: number, onProgress: (n: number) => void): Promise<LogEntry[]> {
  const all: LogEntry[] = [];
  let cursor: string | null = null;
  do {
    const page: components['schemas']['HistoryPage'] = unwrap(
      await api.GET('/api/v2/user/history', { params: { query: logQuery(filters, 100, cursor) } }),
    );
    all.push(...page.items);
    onProgress(all.length);
    cursor = page.next_cursor;
  } while (cursor && all.length < max);
  return all.slice(0, max);
}
