import type Router from '@koa/router';
import { z } from 'zod';
import type { AuditFilter } from '../../../core/admin/audit-query';
import type { ApiServices } from '../../api-services';
import { components } from '../../openapi/components';
import { AUDIT_CSV_HEADER, csvLine, toAuditCsvLine, toAuditPageBody } from '../../views/admin-audit';
import { addRoute } from '../route';

const isoDateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. 2026-01-31T00:00:00Z' });
const text = z.string().trim().min(1).max(200);

const filterQuery = z.object({
  actor: text.optional().describe('an account id (its actions at any door) or a label: `web:12`, `bot:12345`, `cli`'),
  action: text.optional().describe('an action (`user.grant`), or an area with `.*` (`user.*`)'),
  target_type: text.optional().describe('`user`, `order`, `model`, `broadcast`, `promo`…'),
  target_id: text.optional(),
  from: isoDateTime.optional().describe('at or after (inclusive)'),
  to: isoDateTime.optional().describe('before (exclusive)'),
});

const pageQuery = filterQuery.extend({
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('page size, 1 to 200'),
});

export const AuditEntrySchema = z.object({
  id: z.string().describe('increasing: a later action has a larger id'),
  actor: z.object({
    user_id: z.number().int().nullable().describe('null for the CLI (or an account since deleted)'),
    label: z.string().describe('`web:<user id>`, `bot:<Telegram id>`, `cli`'),
    door: z.enum(['web', 'bot', 'cli']),
  }),
  action: z.string().describe('dotted: `user.grant`, `user.plan`, `user.block`, `user.admin`, `order.refund`…'),
  target: z.object({ type: z.string(), id: z.string() }),
  before: z.unknown().describe('the state the action changed, before it (null when it created something)'),
  after: z.unknown().describe('the state after it'),
  created_at: z.string().describe('ISO 8601 UTC timestamp'),
});
components.add(AuditEntrySchema, { id: 'AdminAuditEntry' });

const AuditPageSchema = z.object({
  items: z.array(AuditEntrySchema),
  next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
});
components.add(AuditPageSchema, { id: 'AdminAuditPage' });

type FilterInput = z.output<typeof filterQuery>;

function filterOf(q: FilterInput): AuditFilter {
  return {
    actor: q.actor,
    action: q.action,
    targetType: q.target_type,
    targetId: q.target_id,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
  };
}

/** GET /admin/audit and /admin/audit.csv: what admins did, newest first. */
export function registerAuditRoutes(router: Router, services: Pick<ApiServices, 'adminAudit'>): void {
  const { adminAudit } = services;
  const tags = ['Admin'];

  addRoute(
    router,
    {
      method: 'get',
      path: '/audit',
      operationId: 'adminListAudit',
      summary: 'The audit log of admin actions (bot, dashboard, CLI), newest first',
      description: 'Append-only: every state-changing admin action writes one row in its own transaction; a refused one writes none.',
      tags,
      security: 'bearer',
      query: pageQuery,
      responses: { 200: { description: 'A page of audit entries', schema: AuditPageSchema } },
    },
    async (_ctx, { query }) => toAuditPageBody(await adminAudit.page(filterOf(query), query.cursor, query.limit)),
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/audit.csv',
      operationId: 'adminExportAudit',
      summary: 'The audit log as CSV (same filters), newest first',
      description: `A header row (${AUDIT_CSV_HEADER.join(', ')}), then one row per entry; \`before\` and \`after\` as JSON text.`,
      tags,
      security: 'bearer',
      query: filterQuery,
      responses: {
        200: { description: 'CSV with a header row', contentType: 'text/csv', schema: z.file().describe('the audit log as a CSV file') },
      },
    },
    async (ctx, { query }) => {
      const lines = [csvLine(AUDIT_CSV_HEADER)];
      for await (const row of adminAudit.each(filterOf(query))) lines.push(toAuditCsvLine(row));
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', 'attachment; filename="admin-audit.csv"');
      return lines.join('');
    },
  );
}
