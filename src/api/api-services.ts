import type { Services } from '../services';

/**
 * What the HTTP door may use, named one by one: a new core service reaches HTTP only when it is added here, and
 * each route registrar takes a `Pick` of exactly what it uses. The persistence and infrastructure handles (`ds`,
 * `boss`, `redis`) and the process's lifecycle are never on the list (test/architecture/door-types.ts).
 */
export type ApiServices = Pick<
  Services,
  | 'accounts'
  | 'adminAudit'
  | 'apiKeys'
  | 'adminOrders'
  | 'adminUsers'
  | 'assistants'
  | 'catalogConsole'
  | 'auth'
  | 'chat'
  | 'config'
  | 'createApiKey'
  | 'generations'
  | 'idempotency'
  | 'limiter'
  | 'log'
  | 'payments'
  | 'plans'
  | 'preflight'
  | 'promos'
  | 'broadcasts'
  | 'profiles'
  | 'readiness'
  | 'referrals'
  | 'refusals'
  | 'responses'
  | 'revenue'
  | 'resultFiles'
  | 'schedules'
  | 'settings'
  | 'usage'
  | 'vendorHealth'
  | 'webhooks'
>;
