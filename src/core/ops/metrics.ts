import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The operator metrics, in one registry that GET /metrics exposes. Any module increments the counters it owns
 * (payments, webhooks); gauges that need a query register a source with `setGaugeSource`.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export const generationsTotal = new Counter({
  name: 'nebula_generations_total',
  help: 'Finished generations by model and status (completed, failed)',
  labelNames: ['model', 'status'] as const,
  registers: [metricsRegistry],
});

export const upstreamDuration = new Histogram({
  name: 'nebula_upstream_duration_seconds',
  help: 'Upstream (vendor) call time by provider and outcome (ok or the error kind)',
  labelNames: ['provider', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [metricsRegistry],
});

/** Measured per answer, so an operator sees what the database adds to each request (a slow WAL disk shows here first). */
export const billingWaitSeconds = new Histogram({
  name: 'nebula_billing_wait_seconds',
  help: 'Time a chat answer waited for its token hold or its settlement, group commit included, by step (hold, settle)',
  labelNames: ['step'] as const,
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2],
  registers: [metricsRegistry],
});

export const webhookDeliveriesTotal = new Counter({
  name: 'nebula_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome (succeeded, retry, gave_up)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const paymentsTotal = new Counter({
  name: 'nebula_payments_total',
  help: 'Payments by provider and outcome (succeeded, refunded)',
  labelNames: ['provider', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const rateCounterFailoversTotal = new Counter({
  name: 'nebula_rate_counter_failovers_total',
  help: 'Times the rate counters left Redis for PostgreSQL',
  registers: [metricsRegistry],
});

export const deferredBillingTotal = new Counter({
  name: 'nebula_deferred_billing_total',
  help: 'Chat outcomes written to the billing outbox because the database was unavailable',
  registers: [metricsRegistry],
});

export const settleJournalSpilledTotal = new Counter({
  name: 'nebula_settle_journal_spilled_total',
  help: 'Settlements committed without the WAL flush that went to the billing outbox because the database may have lost them',
  registers: [metricsRegistry],
});

export const chatEarlyDispatchTotal = new Counter({
  name: 'nebula_chat_early_dispatch_total',
  help: 'Chat answers whose vendor call started while their token hold was still committing (the balance last seen covered it)',
  registers: [metricsRegistry],
});

export const chatEarlyDispatchRefusedTotal = new Counter({
  name: 'nebula_chat_early_dispatch_refused_total',
  help: 'Early vendor calls aborted because their hold (or the rate limit beside it) was then refused; nothing was charged',
  registers: [metricsRegistry],
});

export const providerConnectionRequestsTotal = new Counter({
  name: 'nebula_provider_connection_requests_total',
  help: 'Vendor calls by provider, connection (its index in <VENDOR>_API_KEY) and outcome (ok or the error kind)',
  labelNames: ['provider', 'connection', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const providerFailoversTotal = new Counter({
  name: 'nebula_provider_failovers_total',
  help: 'Requests moved on to the next connection before a first byte, by provider, the connection left and why',
  labelNames: ['provider', 'connection', 'reason'] as const,
  registers: [metricsRegistry],
});

/** Each vendor connection's circuit as the gauge reports it. */
export interface ConnectionStateSample {
  provider: string;
  index: number;
  state: 'closed' | 'open' | 'quota_paused';
}
const CIRCUIT_VALUES = { closed: 0, open: 1, quota_paused: 2 } as const;
let connectionStates: (() => readonly ConnectionStateSample[]) | undefined;

new Gauge({
  name: 'nebula_provider_connection_state',
  help: 'Each vendor connection (by its index in <VENDOR>_API_KEY): 0 taking calls, 1 open after failures, 2 paused out of credit',
  labelNames: ['provider', 'connection'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const s of connectionStates?.() ?? []) this.set({ provider: s.provider, connection: String(s.index) }, CIRCUIT_VALUES[s.state]);
  },
});

/** The latest process to register wins (one router per process in production). */
export function setConnectionStateSource(source: () => readonly ConnectionStateSample[]): void {
  connectionStates = source;
}

type GaugeSource = () => Promise<number> | number;
const sources: Record<string, GaugeSource | undefined> = {};

function sourcedGauge(name: string, help: string): Gauge {
  return new Gauge({
    name,
    help,
    registers: [metricsRegistry],
    async collect() {
      const source = sources[name];
      if (!source) return;
      try {
        this.set(await source());
      } catch {
        // A dependency that does not answer leaves the last value; /health/ready reports it.
      }
    },
  });
}

export const GAUGES = {
  reservationsOpen: 'nebula_reservations_open',
  queueDepth: 'nebula_job_queue_depth',
  redisFallback: 'nebula_rate_counters_on_postgres',
  openAnswers: 'nebula_chat_answers_open',
  settlementsNotOnDisk: 'nebula_settlements_not_on_disk',
} as const;

sourcedGauge(GAUGES.reservationsOpen, 'Token reservations held (generations still running)');
sourcedGauge(GAUGES.queueDepth, 'Generation steps waiting in the job queue');
sourcedGauge(GAUGES.redisFallback, '1 while the rate counters run on PostgreSQL because Redis failed, else 0');
sourcedGauge(GAUGES.openAnswers, 'Chat answers (streams and whole answers) in flight in this process');
sourcedGauge(GAUGES.settlementsNotOnDisk, 'Settlements committed without the WAL flush and not yet known to be on disk');

/** The latest process to register a source wins (one service set per process in production). */
export function setGaugeSource(name: (typeof GAUGES)[keyof typeof GAUGES], source: GaugeSource): void {
  sources[name] = source;
}
