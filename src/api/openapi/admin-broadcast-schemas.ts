// Wire shapes of the console's broadcast routes (/api/v2/admin/broadcasts).
import { z } from 'zod';
import { components } from './components';

const segment = z.object({
  plans: z.array(z.string()).optional().describe('plan slugs; absent: every plan'),
  language: z.enum(['en', 'ru']).optional().describe('the bot language the user chose (English if never chosen); absent: any'),
  active_days: z.number().int().optional().describe('made a request within this many days; absent: anyone'),
});

export const AdminBroadcastSchema = z.object({
  id: z.number().int(),
  status: z.enum(['queued', 'sending', 'done', 'canceled']),
  text: z.string(),
  segment,
  total: z.number().int().describe('bot users chosen when it was made'),
  sent: z.number().int(),
  failed: z.number().int().describe('not delivered for another reason (see the log), or interrupted by a restart mid-send'),
  blocked: z.number().int().describe('users who blocked the bot (marked: later broadcasts skip them until they write again)'),
  pending: z.number().int().describe('not sent yet'),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
components.add(AdminBroadcastSchema, { id: 'AdminBroadcast', description: 'A broadcast and its progress' });

export const AdminBroadcastPageSchema = z.object({
  items: z.array(AdminBroadcastSchema),
  next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
});
components.add(AdminBroadcastPageSchema, { id: 'AdminBroadcastPage', description: 'One page of broadcasts, newest first' });
