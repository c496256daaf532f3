import type { Mode } from './report';

// Where a single request's time goes: the service's own histogram nebula_billing_wait_seconds (the hold and the
// settlement) read before and after the concurrency-1 rounds, against the client's end-to-end time in the same
// rounds. Means, not medians: a histogram has sums.

/** Sums (seconds) and counts of the steps of a chat answer, as /metrics reported them at one moment. */
export interface StepTotals {
  hold: { sum: number; count: number };
  settle: { sum: number; count: number };
}

/** Per mode: what the concurrency-1 requests measured, added up over the rounds. */
export interface TimeBreakdown {
  requests: number;
  /** Client-side time of the service's requests and of the mock's own, summed (ms). */
  serviceMs: number;
  mockMeanMs: number;
  steps: StepTotals;
}

const EMPTY = (): StepTotals => ({ hold: { sum: 0, count: 0 }, settle: { sum: 0, count: 0 } });
const STEPS = ['hold', 'settle'] as const;

function sample(text: string, metric: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${metric}{`) && l.includes(labels));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** The step totals from a /metrics text. */
export function stepTotals(text: string): StepTotals {
  const step = (name: string) => ({
    sum: sample(text, 'nebula_billing_wait_seconds_sum', `step="${name}"`),
    count: sample(text, 'nebula_billing_wait_seconds_count', `step="${name}"`),
  });
  return { hold: step('hold'), settle: step('settle') };
}

export function stepsBetween(before: StepTotals, after: StepTotals): StepTotals {
  const d = (k: keyof StepTotals) => ({ sum: after[k].sum - before[k].sum, count: after[k].count - before[k].count });
  return { hold: d('hold'), settle: d('settle') };
}

export function addSteps(into: StepTotals, more: StepTotals): void {
  for (const k of STEPS) {
    into[k].sum += more[k].sum;
    into[k].count += more[k].count;
  }
}

export function emptyBreakdown(): TimeBreakdown {
  return { requests: 0, serviceMs: 0, mockMeanMs: NaN, steps: EMPTY() };
}

const meanMs = (s: { sum: number; count: number }) => (s.count > 0 ? (s.sum / s.count) * 1000 : NaN);
const fmt = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');

/** The report's table: one row per mode. */
export function renderBreakdown(byMode: Partial<Record<Mode, TimeBreakdown>>): string[] {
  const rows: string[] = [];
  for (const [mode, b] of Object.entries(byMode) as [Mode, TimeBreakdown][]) {
    if (b.requests === 0) continue;
    const total = b.serviceMs / b.requests;
    const hold = meanMs(b.steps.hold);
    const settle = meanMs(b.steps.settle);
    const share = (v: number) => `${fmt(v)} (${Number.isFinite(v / total) ? Math.round((100 * v) / total) : 'n/a'}%)`;
    rows.push(`| ${mode} | ${fmt(total)} | ${fmt(b.mockMeanMs)} | ${share(hold)} | ${share(settle)} | ${share(total - hold - settle)} |`);
  }
  if (rows.length === 0) return [];
  return [
    "## Where a single request's time goes (concurrency 1, /v1/chat/completions, means)",
    '',
    '| Mode | end to end ms | mock direct ms | waiting for the hold ms | waiting for the settlement ms | everything else ms |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    "From the service's own histogram `nebula_billing_wait_seconds`, read around the concurrency-1 rounds. The vendor " +
      'call starts while the hold commits, so in the sync mode it is hidden inside the hold\'s wait; "everything else" is ' +
      "HTTP, routing, authentication, parsing and writing the answer (and, streaming, relaying the vendor's events). " +
      '`npm run bench:billing-floor` measures the two statements alone, on one connection (bench/billing-floor-results.md).',
  ];
}
