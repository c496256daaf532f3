import type { ParameterizedContext } from 'koa';
import { adminActors, type AdminActor } from '../../core/admin/audit-log';
import { authOf } from './auth';

/** The admin behind a console request, as the audit log names them (`web:<user id>`). */
export function adminActorOf(ctx: ParameterizedContext): AdminActor {
  return adminActors.web(authOf(ctx).userId);
}
