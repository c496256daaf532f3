// Who does admin actions, as the audit log names them at each door.

export type AdminDoor = 'web' | 'bot' | 'cli';

/** Who did an admin action: the account (null for the CLI), its door, and how the door names it (`web:12`). */
export interface AdminActor {
  userId: number | null;
  door: AdminDoor;
  label: string;
}

export interface AdminAuditEntry {
  actor: AdminActor;
  /** Dotted: `user.grant`, `user.plan`, `user.block`, `broadcast.create`, `promo.create`, `order.refund`… */
  action: string;
  target: { type: string; id: string | number };
  before?: unknown;
  after?: unknown;
}

/** The actor of a dashboard session, a bot admin and the CLI, labelled the same way everywhere. */
export const adminActors = {
  web: (userId: number): AdminActor => ({ userId, door: 'web', label: `web:${userId}` }),
  bot: (userId: number | null, telegramId: number | string): AdminActor => ({ userId, door: 'bot', label: `bot:${telegramId}` }),
  cli: (): AdminActor => ({ userId: null, door: 'cli', label: 'cli' }),
};
