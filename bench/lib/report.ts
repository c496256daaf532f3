import type { Surface } from './http-load';
import type { BillingCheck } from './service-fixture';
import type { VendorClientFigures } from './vendor-client';
import type { LatencySummary } from './stats';
import { issue42Targets } from './issue42-targets';
import { renderBreakdown, TimeBreakdown } from './time-breakdown';

export type Mode = 'sync' | 'stream';

export interface CpuPerRequest {
  gateway: number;
  /** The service's PostgreSQL backends (absent for gateways without a database). */
  postgres?: number;
  mock: number;
}

export interface ModeFigures {
  latency: LatencySummary;
  /** Time to the first body byte at concurrency 1 (streaming only is interesting). */
  firstByteP50: number;
  latencyFailed: number;
  /** Median of the rounds' req/s. */
  rps: number;
  rpsRounds: number[];
  throughputOk: number;
  throughputFailed: number;
  throughputStatuses: Record<number, number>;
  cpu?: CpuPerRequest;
}

export interface TargetFigures {
  name: string;
  /** The wire format it was measured through (chat completions when absent). */
  surface?: Surface;
  isGateway: boolean;
  /** This service: how many accounts the load was spread over. */
  accounts?: number;
  latencyMeasured: boolean;
  modes: Record<Mode, ModeFigures>;
  memory?: { idleKb: number; sampledPeakKb: number; hwmKb: number };
}

export interface RateLimitRun {
  plan: string;
  sent: number;
  accepted: number;
  refused429: number;
  other: number;
  limitHour: number;
  sameHour: boolean;
  refusalBody?: string;
  billing: BillingCheck;
}

export interface BenchReport {
  date: string;
  machine: string;
  command: string;
  revision: string;
  settings: string;
  targets: TargetFigures[];
  billing: BillingCheck;
  /** One check per account of the many-accounts runs. */
  manyBilling: BillingCheck[];
  /** One check per account of the other surfaces (/v1/messages, /v1/responses). */
  surfaceBilling: BillingCheck[];
  rateLimit?: RateLimitRun;
  redis: string;
  load: string;
  vendorClient?: VendorClientFigures;
  /** Vendor calls the service started beside their hold, and those a refused hold then aborted. */
  earlyDispatch?: { started: number; refused: number };
  /** Where the service's concurrency-1 time goes, per mode. */
  timeBreakdown?: Partial<Record<Mode, TimeBreakdown>>;
  /** Concurrency 1 with the mock waiting `firstByteMs` before each answer's first byte (issue 42's 20 ms case). */
  slowVendor?: SlowVendorFigures;
}

export interface SlowVendorFigures {
  firstByteMs: number;
  requests: number;
  /** Per target (the mock direct first): p50 and p99 per mode. */
  rows: { name: string; isGateway: boolean; isPortkey: boolean; modes: Record<Mode, { p50: number; p99: number; failed: number }> }[];
}

/** The 20 ms table: added p50 against the ≤ 1.0 ms and below-Portkey target, sync and stream, per surface. */
function slowVendorSection(v: SlowVendorFigures): string[] {
  const direct = v.rows.find((r) => !r.isGateway);
  const portkey = v.rows.find((r) => r.isPortkey);
  const out = [
    `## Vendor waiting ${v.firstByteMs} ms before its first byte (concurrency 1)`,
    '',
    `${v.requests} requests per target and mode, in rotating rounds. Target (issue 42): added p50 ≤ 1.0 ms and below Portkey's, sync and stream.`,
    '',
    '| Target | Mode | p50 ms | p99 ms | added p50 ms | added p99 ms | target | failed |',
    '|---|---|---:|---:|---:|---:|---|---:|',
  ];
  for (const mode of MODES) {
    const base = direct?.modes[mode];
    const pk = portkey && base ? portkey.modes[mode].p50 - base.p50 : NaN;
    for (const r of v.rows) {
      const f = r.modes[mode];
      const added = base && r.isGateway ? f.p50 - base.p50 : NaN;
      const verdict = !r.isGateway || r.isPortkey ? '—' : added <= 1.0 && added < pk ? 'met' : 'MISSED';
      out.push(
        `| ${r.name} | ${mode} | ${ms(f.p50)} | ${ms(f.p99)} | ${r.isGateway ? signedMs(added) : '—'} | ` +
          `${r.isGateway && base ? signedMs(f.p99 - base.p99) : '—'} | ${verdict} | ${f.failed} |`,
      );
    }
  }
  out.push('');
  return out;
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
const signedMs = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(2)}` : 'n/a');
const mb = (kb: number) => (Number.isFinite(kb) ? `${(kb / 1024).toFixed(0)} MB` : 'n/a');
const MODES: Mode[] = ['sync', 'stream'];

function billingLine(b: BillingCheck): string {
  return (
    `user ${b.userId}: ${b.successfulRequests} successful requests -> ${b.completed} completed generations ` +
    `(${b.pending} pending, ${b.failed} failed), ${b.reserveRows} reserve + ${b.settleRows} settle ledger rows, ` +
    `${b.settledReservations} settled reservations, ${b.withdrawn} holds withdrawn (refused after the hold), ${b.openHolds} open, ` +
    `${b.unbilled} completed with 0 tokens, ${b.tokensSpent} tokens spent, ` +
    `ledger sum ${b.ledgerMatchesBalance ? '=' : '!='} stored balance: **${b.ok ? 'every request billed' : 'MISMATCH'}**`
  );
}

/** The results as markdown: main table, memory, verdicts against the targets, billing and rate-limit checks. */
export function renderMarkdown(r: BenchReport): string {
  const out: string[] = [];
  out.push('# Gateway overhead benchmark', '');
  out.push(
    `- Date: ${r.date}`,
    `- Machine: ${r.machine}`,
    `- Command: \`${r.command}\``,
    `- Code: ${r.revision}`,
    `- Settings: ${r.settings}`,
    `- Rate counters: ${r.redis}`,
    `- Machine load: ${r.load}`,
    '',
  );
  const direct = r.targets.find((t) => !t.isGateway);
  if (r.slowVendor) out.push(...slowVendorSection(r.slowVendor));
  out.push('## Latency (concurrency 1) and throughput (concurrency 64)', '');
  out.push(
    '| Target | Mode | p50 ms | p99 ms | added p50 ms | added p99 ms | first byte p50 ms | req/s @64 (rounds) | failed (c1 / c64) |',
  );
  out.push('|---|---|---:|---:|---:|---:|---:|---:|---|');
  for (const mode of MODES) {
    for (const t of r.targets) {
      const f = t.modes[mode];
      const base = direct?.modes[mode].latency;
      const added = (v: number, b: number | undefined) => (t.isGateway && b !== undefined ? signedMs(v - b) : '—');
      const timed = (text: string) => (t.latencyMeasured ? text : '—');
      out.push(
        `| ${t.name} | ${mode} | ${timed(ms(f.latency.p50))} | ${timed(ms(f.latency.p99))} | ${timed(added(f.latency.p50, base?.p50))} | ` +
          `${timed(added(f.latency.p99, base?.p99))} | ${timed(ms(f.firstByteP50))} | ${f.rps.toFixed(0)} (${f.rpsRounds.map((v) => v.toFixed(0)).join(', ')}) | ` +
          `${t.latencyMeasured ? f.latencyFailed : '—'} / ${f.throughputFailed} |`,
      );
    }
  }
  out.push(
    '',
    'Added = gateway minus the mock called directly, per percentile, same run. req/s is the median of the rounds (each round in brackets).',
  );
  if (r.targets.some((t) => t.name.startsWith('Portkey'))) {
    out.push(
      'Portkey 1.15.2 pauses 25 ms before the first streamed chunk by design (its SSE splitter), which dominates its streaming latency; see bench/README.md.',
    );
  }
  out.push('');
  out.push('## Memory of each gateway process', '');
  out.push('| Gateway | RSS idle after start | RSS peak sampled under load | VmHWM (peak since start) |', '|---|---:|---:|---:|');
  // The many-accounts and other-surface entries are the same process as the one-account entry.
  for (const t of r.targets.filter((x) => x.memory && (x.accounts === undefined || (x.accounts === 1 && !x.surface)))) {
    out.push(`| ${t.name} | ${mb(t.memory!.idleKb)} | ${mb(t.memory!.sampledPeakKb)} | ${mb(t.memory!.hwmKb)} |`);
  }
  out.push('', '## CPU per request during the concurrency-64 runs (ms, user + system, from /proc)', '');
  out.push('| Target | Mode | gateway process | its PostgreSQL backends | mock upstream |', '|---|---|---:|---:|---:|');
  for (const mode of MODES) {
    for (const t of r.targets) {
      const c = t.modes[mode].cpu;
      if (!c) continue;
      out.push(
        `| ${t.name} | ${mode} | ${t.isGateway ? ms(c.gateway) : '—'} | ${c.postgres !== undefined ? ms(c.postgres) : '—'} | ${ms(c.mock)} |`,
      );
    }
  }
  if (r.vendorClient) {
    out.push(
      '',
      '## Cost of the vendor client (in the bench process, concurrency 1, against the mock)',
      '',
      '| Mode | Client | p50 µs per call | added p50 µs | CPU µs per call | added CPU µs |',
      '|---|---|---:|---:|---:|---:|',
    );
    for (const mode of MODES) {
      const [bare] = r.vendorClient[mode];
      for (const c of r.vendorClient[mode]) {
        const plus = (v: number, b: number) => (c === bare ? '—' : `${v >= b ? '+' : ''}${(v - b).toFixed(0)}`);
        out.push(
          `| ${mode} | ${c.name} | ${c.p50Us.toFixed(0)} | ${plus(c.p50Us, bare.p50Us)} | ${c.cpuUs.toFixed(0)} | ${plus(c.cpuUs, bare.cpuUs)} |`,
        );
      }
    }
    out.push(
      '',
      'Medians over rotating rounds. The adapter row includes building the request body, validating the answer and parsing SSE.',
    );
  }
  if (r.earlyDispatch) {
    out.push(
      '',
      '## Vendor calls started beside their hold',
      '',
      `- ${r.earlyDispatch.started} vendor calls started while their hold was still committing (the balance last seen covered it); ` +
        `${r.earlyDispatch.refused} of them were aborted because the hold or the rate check beside it was refused (nothing charged).`,
    );
  }
  if (r.timeBreakdown) {
    const table = renderBreakdown(r.timeBreakdown);
    if (table.length > 0) out.push('', ...table);
  }
  out.push('', '## Against the targets of issue 42', '', ...issue42Targets(r), '');
  out.push('## Billing check (SQL on the bench database)', '', `- elite (throughput runs): ${billingLine(r.billing)}`);
  if (r.manyBilling.length > 0) {
    const bad = r.manyBilling.filter((c) => !c.ok);
    const sum = (f: (c: BillingCheck) => number) => r.manyBilling.reduce((n, c) => n + f(c), 0);
    out.push(
      `- ${r.manyBilling.length} elite accounts (many-accounts runs): ${sum((c) => c.successfulRequests)} successful requests -> ` +
        `${sum((c) => c.completed)} completed generations, ${sum((c) => c.reserveRows)} reserve + ${sum((c) => c.settleRows)} settle ledger rows, ` +
        `${sum((c) => c.openHolds)} open holds, ledger sum = stored balance on ${r.manyBilling.filter((c) => c.ledgerMatchesBalance).length} of ${r.manyBilling.length}: ` +
        `**${bad.length === 0 ? 'every request billed' : `MISMATCH (${bad.map((c) => billingLine(c)).join('; ')})`}**`,
    );
  }
  for (const [i, c] of r.surfaceBilling.entries()) {
    const t = r.targets.filter((x) => x.surface && x.surface !== 'chat')[i];
    out.push(`- ${t?.name ?? 'surface'} (elite): ${billingLine(c)}`);
  }
  if (r.rateLimit) {
    const rl = r.rateLimit;
    out.push(
      `- ${rl.plan} (rate-limit run): ${billingLine(rl.billing)}`,
      '',
      '## Rate limiting exercised (VIP user)',
      '',
      `- ${rl.sent} sync requests at concurrency 8 by a ${rl.plan} user (limit ${rl.limitHour}/hour): ${rl.accepted} answered 200, ` +
        `${rl.refused429} refused 429, ${rl.other} other` +
        (rl.sameHour ? '' : ' (the run crossed an hour boundary: counts span two windows)'),
    );
    if (rl.refusalBody) out.push(`- a refusal: \`${rl.refusalBody}\``);
  }
  out.push('');
  return out.join('\n');
}
