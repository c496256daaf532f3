import type { BenchReport, Mode, SlowVendorFigures, TargetFigures } from './report';

// The targets of issue 42 (decisions.md, "Performance, restated"), each met or MISSED with its figures.

const MODES: Mode[] = ['sync', 'stream'];
const signedMs = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(2)}` : 'n/a');
const mb = (kb: number) => (Number.isFinite(kb) ? `${(kb / 1024).toFixed(0)} MB` : 'n/a');
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${(a / b).toFixed(2)}×` : 'n/a');
const meanMs = (s: { sum: number; count: number }) => (s.count > 0 ? ((s.sum / s.count) * 1000).toFixed(2) : 'n/a');
const verdict = (ok: boolean) => `**${ok ? 'met' : 'MISSED'}**`;
const surfaceLabel = (name: string) =>
  name
    .replace(/^nebula-gen /, '')
    .replace(/ \(elite key\)$/, '')
    .replace(/^\(.*\)$/, '');

function slowVendorLines(v: SlowVendorFigures | undefined): string[] {
  if (!v) return ['1. Vendor waiting 20 ms, concurrency 1, added p50 ≤ 1.0 ms and below Portkey’s: not measured in this run'];
  const direct = v.rows.find((r) => !r.isGateway);
  const portkey = v.rows.find((r) => r.isPortkey);
  if (!direct || !portkey) return [];
  const lines: string[] = [];
  let all = true;
  for (const r of v.rows.filter((x) => x.isGateway && !x.isPortkey)) {
    for (const mode of MODES) {
      const added = r.modes[mode].p50 - direct.modes[mode].p50;
      const theirs = portkey.modes[mode].p50 - direct.modes[mode].p50;
      const ok = added <= 1.0 && added < theirs;
      all &&= ok;
      lines.push(
        `   - ${surfaceLabel(r.name) || '/v1/chat/completions'}, ${mode}: ${verdict(ok)} (${signedMs(added)} ms; Portkey ${signedMs(theirs)} ms)`,
      );
    }
  }
  return [`1. Vendor waiting ${v.firstByteMs} ms, concurrency 1, added p50 ≤ 1.0 ms and below Portkey’s: ${verdict(all)}`, ...lines];
}

/** Issue 42's five targets, in its order. */
export function issue42Targets(r: BenchReport): string[] {
  const direct = r.targets.find((t) => !t.isGateway);
  const portkey = r.targets.find((t) => t.name.startsWith('Portkey'));
  const one = r.targets.find((t) => t.accounts === 1 && !t.surface);
  const many = r.targets.find((t) => t.accounts !== undefined && t.accounts > 1);
  if (!direct || !portkey || !one) return [];
  const surfaces = [one, ...r.targets.filter((t) => t.surface && t.surface !== 'chat')];
  const label = (t: TargetFigures) => (t === one ? '/v1/chat/completions' : surfaceLabel(t.name));
  const added = (t: TargetFigures, mode: Mode, p: 'p50' | 'p99') => t.modes[mode].latency[p] - direct.modes[mode].latency[p];
  const lines = slowVendorLines(r.slowVendor);

  const p99: string[] = [];
  let p99Met = true;
  for (const t of surfaces) {
    for (const mode of MODES) {
      const ours = added(t, mode, 'p99');
      const theirs = added(portkey, mode, 'p99');
      p99Met &&= ours < theirs;
      p99.push(
        `   - ${label(t)}, ${mode}: ${verdict(ours < theirs)} (${signedMs(ours)} vs ${signedMs(theirs)} ms); ` +
          `added p50 ${signedMs(added(t, mode, 'p50'))} ms (Portkey ${signedMs(added(portkey, mode, 'p50'))} ms), reported`,
      );
    }
  }
  const floor = r.timeBreakdown?.sync;
  if (floor) {
    p99.push(
      `   - billing floor at concurrency 1 (sync, means): waiting for the hold ${meanMs(floor.steps.hold)} ms (the vendor call runs beside it), ` +
        `for the settlement ${meanMs(floor.steps.settle)} ms, reported`,
    );
  }
  lines.push(`2. Instant vendor, concurrency 1, added p99 below Portkey’s: ${verdict(p99Met)}`, ...p99);

  const tp: string[] = [];
  let tpMet = many !== undefined;
  for (const t of [one, ...(many ? [many] : [])]) {
    const who = t === many ? `${t.accounts} accounts` : 'one account';
    for (const mode of MODES) {
      const ok = t.modes[mode].rps >= 2 * portkey.modes[mode].rps;
      tpMet &&= ok;
      tp.push(
        `   - /v1/chat/completions, ${who}, ${mode}: ${verdict(ok)} (${t.modes[mode].rps.toFixed(0)} vs ${portkey.modes[mode].rps.toFixed(0)} req/s, ${ratio(t.modes[mode].rps, portkey.modes[mode].rps)})`,
      );
    }
  }
  for (const t of surfaces.filter((s) => s !== one)) {
    for (const mode of MODES) {
      tp.push(
        `   - ${label(t)}, one account, ${mode}: ${t.modes[mode].rps.toFixed(0)} req/s (${ratio(t.modes[mode].rps, portkey.modes[mode].rps)} Portkey’s), reported`,
      );
    }
  }
  lines.push(`3. Concurrency 64, at least twice Portkey’s req/s: ${verdict(tpMet)}`, ...tp);

  const rss = [one.memory?.sampledPeakKb ?? NaN, portkey.memory?.sampledPeakKb ?? NaN];
  const hwm = [one.memory?.hwmKb ?? NaN, portkey.memory?.hwmKb ?? NaN];
  lines.push(
    `4. Peak RSS at most Portkey’s: ${verdict(hwm[0] <= hwm[1])} (VmHWM ${mb(hwm[0])} vs ${mb(hwm[1])}, ${ratio(hwm[0], hwm[1])}; sampled ${mb(rss[0])} vs ${mb(rss[1])})`,
  );

  const checks = [r.billing, ...r.manyBilling, ...r.surfaceBilling, ...(r.rateLimit ? [r.rateLimit.billing] : [])];
  const bad = checks.filter((c) => !c.ok);
  const requests = checks.reduce((n, c) => n + c.successfulRequests, 0);
  lines.push(
    `5. Exactly-once billing, checked in SQL: ${verdict(bad.length === 0 && r.manyBilling.length > 0)} (${requests} successful requests of ${checks.length} accounts` +
      `${bad.length > 0 ? `; MISMATCH for user ${bad.map((c) => c.userId).join(', ')}` : ', every one billed exactly once'})`,
  );
  return lines;
}
