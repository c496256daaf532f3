/**
 * Type-level test, checked by `npm run typecheck` (CI): each `@ts-expect-error` line below MUST fail to compile.
 * If a door's service type ever exposes the DataSource, the job queue or Redis again, the expected error
 * disappears and the type check fails with "Unused '@ts-expect-error' directive".
 */
import type { DataSource } from 'typeorm';
import type { ApiServices } from '../../src/api/api-services';
import type { BotServices } from '../../src/bot/context';

/** Keys of T whose value is, or directly holds as a public member, a Forbidden. */
type Reaching<T, Forbidden> = {
  [K in keyof T]-?: T[K] extends Forbidden
    ? K
    : T[K] extends object
      ? { [P in keyof T[K]]-?: T[K][P] extends Forbidden ? K : never }[keyof T[K]]
      : never;
}[keyof T];

export function apiDoorCannotReachPersistence(services: ApiServices): void {
  // @ts-expect-error the HTTP door has no DataSource
  void services.ds;
  // @ts-expect-error the HTTP door has no job queue
  void services.boss;
  // @ts-expect-error the HTTP door has no Redis handle
  void services.redis;
}

export function botDoorCannotReachPersistence(services: BotServices): void {
  // @ts-expect-error the bot has no DataSource
  void services.ds;
  // @ts-expect-error the bot has no job queue
  void services.boss;
}

// No service a door holds hands out a DataSource through a public member either.
export const apiServicesHoldNoDataSource: [Reaching<ApiServices, DataSource>] extends [never] ? true : false = true;
export const botServicesHoldNoDataSource: [Reaching<BotServices, DataSource>] extends [never] ? true : false = true;
