import type { Logger } from './logger';

/**
 * A promise rejected with nobody listening (a library's un-awaited call meeting a database or Redis outage, say)
 * ends a Node process by default. The service logs it instead and keeps running: every piece of work it could
 * lose that way is durable elsewhere (jobs expire and are retried, holds and settlements are in the database or
 * the billing outbox), while an exit would cut every open stream. @returns a function that removes the handler
 */
export function keepRunningOnUnhandledRejection(log: Logger): () => void {
  const handler = (reason: unknown) => log.error({ err: reason }, 'unhandled promise rejection: logged; the process keeps running');
  process.on('unhandledRejection', handler);
  return () => process.off('unhandledRejection', handler);
}
