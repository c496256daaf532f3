// The audit log as /api/v2/admin renders it: JSON rows and the CSV export.
import type { AuditPage, AuditRecord } from '../../core/admin/audit-query';

export function toAuditEntryBody(r: AuditRecord) {
  return {
    id: r.id,
    actor: { user_id: r.actor.userId, label: r.actor.label, door: r.actor.door },
    action: r.action,
    target: { type: r.target.type, id: r.target.id },
    before: r.before ?? null,
    after: r.after ?? null,
    created_at: r.createdAt.toISOString(),
  };
}

export function toAuditPageBody(page: AuditPage) {
  return { items: page.items.map(toAuditEntryBody), next_cursor: page.nextCursor };
}

export const AUDIT_CSV_HEADER = [
  'id',
  'created_at',
  'actor_user_id',
  'actor_label',
  'door',
  'action',
  'target_type',
  'target_id',
  'before',
  'after',
] as const;

/** One CSV line (RFC 4180 quoting; a cell a spreadsheet would run as a formula is prefixed with `'`). */
export function toAuditCsvLine(r: AuditRecord): string {
  const json = (v: unknown) => (v === null || v === undefined ? '' : JSON.stringify(v));
  return csvLine([
    r.id,
    r.createdAt.toISOString(),
    r.actor.userId === null ? '' : String(r.actor.userId),
    r.actor.label,
    r.actor.door,
    r.action,
    r.target.type,
    r.target.id,
    json(r.before),
    json(r.after),
  ]);
}

export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
