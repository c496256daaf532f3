// The console's broadcasts in their /api/v2/admin wire shape.
import type { BroadcastRecord } from '../../core/broadcasts/broadcast-desk';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function adminBroadcastView(b: BroadcastRecord) {
  return {
    id: b.id,
    status: b.status,
    text: b.text,
    segment: {
      ...(b.segment.plans ? { plans: b.segment.plans } : {}),
      ...(b.segment.language ? { language: b.segment.language } : {}),
      ...(b.segment.activeDays !== undefined && b.segment.activeDays !== null ? { active_days: b.segment.activeDays } : {}),
    },
    total: b.total,
    sent: b.sent,
    failed: b.failed,
    blocked: b.blocked,
    pending: b.pending,
    created_at: new Date(b.createdAt).toISOString(),
    started_at: iso(b.startedAt),
    finished_at: iso(b.finishedAt),
  };
}
