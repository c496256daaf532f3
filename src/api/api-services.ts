import type { Services } from '../services';

/**
 * What the HTTP door may use: every core service, but not the persistence and infrastructure handles
 * (`ds`, `boss`, `redis`) nor the process's lifecycle. A door that reaches for them fails the type check
 * (test/architecture/door-types.ts).
 */
export type ApiServices = Omit<Services, 'ds' | 'boss' | 'redis' | 'close' | 'stopJobs' | 'recoverAbandoned'>;
