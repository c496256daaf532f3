import type { ParameterizedContext } from 'koa';
import type { AdminActor } from '../../core/admin/audit-port';
import { authOf } from './auth';

/** The admin behind a console request, as the audit log names them (`web:<user id>`). */
export function adminActorOf(ctx: ParameterizedContext): AdminActor {
  const { userId } = authOf(ctx);
  return { userId, door: 'web', label: `web:${userId}` };
}
