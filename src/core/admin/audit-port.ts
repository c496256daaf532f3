import type { EntityManager } from 'typeorm';

/** Who did an admin action, and through which door. */
export interface AdminActor {
  userId: number | null;
  door: 'web' | 'bot' | 'cli';
  /** `web:12`, `bot:12345`, `cli`. */
  label: string;
}

export interface AuditEntry {
  actor: AdminActor;
  action: string;
  target: { type: string; id: string | number };
  before?: unknown;
  after?: unknown;
}

/** What the money and catalog desks need of the audit log (AdminAuditLog): one row per action, in its transaction. */
export interface AuditRecorder {
  record(entry: AuditEntry, manager?: EntityManager): Promise<void>;
}
