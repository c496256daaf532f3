import type { BillingCheck } from './service-fixture';
import type { LatencySummary } from './stats';

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
  rps: number;
  throughputOk: number;
  throughputFailed: number;
  throughputStatuses: Record<number, number>;
  cpu?: CpuPerRequest;
}

export interface TargetFigures {
  name: string;
  isGateway: boolean;
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
  rateLimit?: RateLimitRun;
  redis: string;
  load: string;
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
const signedMs = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(2)}` : 'n/a');
const mb = (kb: number) => (Number.isFinite(kb) ? `${(kb / 1024).toFixed(0)} MB` : 'n/a');
const MODES: Mode[] = ['sync', 'stream'];

function verdicts(r: BenchReport): string[] {
  const direct = r.targets.find((t) => !t.isGateway);
  const [portkey, service] = r.targets.filter((t) => t.isGateway);
  if (!direct || !portkey || !service) return [];
  const lines: string[] = [];
  for (const mode of MODES) {
    const d = direct.modes[mode].latency;
    const p = portkey.modes[mode];
    const s = service.modes[mode];
    const check = (label: string, ok: boolean, detail: string) =>
      lines.push(`- ${mode}, ${label}: **${ok ? 'met' : 'MISSED'}** (${detail})`);
    const addedP50 = [s.latency.p50 - d.p50, p.latency.p50 - d.p50];
    const addedP99 = [s.latency.p99 - d.p99, p.latency.p99 - d.p99];
    check('added latency p50 below Portkey', addedP50[0] < addedP50[1], `${signedMs(addedP50[0])} ms vs ${signedMs(addedP50[1])} ms`);
    check('added latency p99 below Portkey', addedP99[0] < addedP99[1], `${signedMs(addedP99[0])} ms vs ${signedMs(addedP99[1])} ms`);
    check('req/s at concurrency 64 above Portkey', s.rps > p.rps, `${s.rps.toFixed(0)} vs ${p.rps.toFixed(0)}`);
  }
  return lines;
}

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
  out.push('## Latency (concurrency 1) and throughput (concurrency 64)', '');
  out.push('| Target | Mode | p50 ms | p99 ms | added p50 ms | added p99 ms | first byte p50 ms | req/s @64 | failed (c1 / c64) |');
  out.push('|---|---|---:|---:|---:|---:|---:|---:|---|');
  for (const mode of MODES) {
    for (const t of r.targets) {
      const f = t.modes[mode];
      const base = direct?.modes[mode].latency;
      const added = (v: number, b: number | undefined) => (t.isGateway && b !== undefined ? signedMs(v - b) : '—');
      out.push(
        `| ${t.name} | ${mode} | ${ms(f.latency.p50)} | ${ms(f.latency.p99)} | ${added(f.latency.p50, base?.p50)} | ` +
          `${added(f.latency.p99, base?.p99)} | ${ms(f.firstByteP50)} | ${f.rps.toFixed(0)} | ${f.latencyFailed} / ${f.throughputFailed} |`,
      );
    }
  }
  out.push('', 'Added = gateway minus the mock called directly, per percentile, same run.');
  if (r.targets.some((t) => t.name.startsWith('Portkey'))) {
    out.push(
      'Portkey 1.15.2 pauses 25 ms before the first streamed chunk by design (its SSE splitter), which dominates its streaming latency; see bench/README.md.',
    );
  }
  out.push('');
  out.push('## Memory of each gateway process', '');
  out.push('| Gateway | RSS idle after start | RSS peak sampled under load | VmHWM (peak since start) |', '|---|---:|---:|---:|');
  for (const t of r.targets.filter((x) => x.memory)) {
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
  out.push('', '## Against the targets of issue 5', '', ...verdicts(r), '');
  out.push('## Billing check (SQL on the bench database)', '', `- elite (throughput runs): ${billingLine(r.billing)}`);
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
