import PgBoss from 'pg-boss';
import { refillDuePlans } from '../core/billing/refill';
import { purgeClosedReservations } from '../core/billing/reservation-purge';
import { connectionsFor } from '../core/catalog/live/check';
import { deleteExpiredResults } from '../core/generations/media/retention';
import { Services } from '../services';
import { GENERATION_STEP, RESPONSE_RUN } from './boss';
import { runBackgroundResponse } from '../api/v1/responses/background';
import { startMailWorker } from './mail';
import { startPaymentWorkers } from './payments';
import { startWebhookWorkers } from './webhook-jobs';

const SWEEP = 'generations-sweep';
const MAINTENANCE = 'maintenance';
const SCHEDULES = 'schedules-run';
const CATALOG_CHECK = 'catalog-check';
/** The request log keeps refused calls this long. */
const REFUSALS_KEPT_DAYS = 90;

/** Registers the durable job handlers and schedules on a started pg-boss. */
export async function startWorkers(boss: PgBoss, services: Services): Promise<void> {
  const { generations, queue, log } = services;
  for (const name of [GENERATION_STEP, RESPONSE_RUN, SWEEP, MAINTENANCE, SCHEDULES, CATALOG_CHECK]) await boss.createQueue(name);

  // Each job of a batch succeeds or fails on its own: a failed one is failed (and retried) by itself; pg-boss then
  // completes the rest when the handler returns (its completion only touches jobs still active).
  await boss.work<{ generationId: number }>(GENERATION_STEP, { pollingIntervalSeconds: 0.5, batchSize: 4 }, async (jobs) => {
    await Promise.all(
      jobs.map(async (job) => {
        try {
          const delay = await generations.advance(job.data.generationId);
          if (delay !== null) await queue.enqueue(job.data.generationId, delay);
        } catch (err) {
          log.warn({ err, generationId: job.data.generationId }, 'generation step failed; it will be retried');
          await boss.fail(GENERATION_STEP, job.id, { message: (err as Error).message }).catch(() => undefined);
        }
      }),
    );
  });

  // Background responses of /v1/responses: each runs once, to its end (a failed run is stored as failed, not retried).
  await boss.work<{ responseId: string }>(RESPONSE_RUN, { pollingIntervalSeconds: 0.5, batchSize: 4 }, async (jobs) => {
    await Promise.all(
      jobs.map((job) =>
        runBackgroundResponse(services, job.data.responseId).catch((err: unknown) => {
          log.warn({ err, response: job.data.responseId }, 'background response run failed');
        }),
      ),
    );
  });

  await boss.work(SWEEP, async () => {
    // Streams of instances that died and did not come back (their lease went silent), then the deadline.
    await services.recoverAbandoned(false);
    const failed = await generations.sweepExpired();
    if (failed > 0) log.warn({ failed }, 'pending generations past their deadline were failed and released');
  });

  await boss.work(MAINTENANCE, async () => {
    const refilled = await refillDuePlans(services.ds);
    const expired = await deleteExpiredResults(services.ds, services.storage);
    const responses = await services.responses.purgeExpired();
    const reservations = await purgeClosedReservations(services.ds);
    await services.idempotency.purgeExpired();
    await services.counters.purgeExpired();
    await services.leases.purgeFinished();
    await services.auth.purgeExpired();
    await services.refusals.purgeOlderThan(REFUSALS_KEPT_DAYS);
    const done = refilled + expired + responses + reservations;
    log[done > 0 ? 'info' : 'debug']({ refilled, expired, responses, reservations }, 'maintenance done');
  });

  await boss.work(SCHEDULES, async () => {
    const started = await services.schedules.runDue();
    if (started > 0) log.info({ started }, 'scheduled generations started');
  });

  // Asks every vendor for its model list; what changed is told to the admins once (see LiveCatalog.check).
  await boss.work(CATALOG_CHECK, async () => {
    const { report, changes } = await services.catalog.check(connectionsFor(services.connections));
    log.info({ models: report.models.length, changes: changes.length }, 'catalog checked against the vendors');
  });

  await startWebhookWorkers(boss, services.webhooks, log);

  await startMailWorker(boss, services.mailTransport);

  await boss.schedule(SWEEP, '* * * * *');
  await boss.schedule(SCHEDULES, '* * * * *');
  await boss.schedule(MAINTENANCE, '*/10 * * * *');
  await boss.schedule(CATALOG_CHECK, '17 5 * * *');
  await startPaymentWorkers(boss, services);
}
