// Vendor health for the console: each connection's breaker (closed, open, half open after its cooldown), its error
// rate over the last 5 minutes, and a quota pause with its end.
import { vendorHealth } from '../../src/core/admin/vendor-health';
import { ProviderGate } from '../../src/core/providers/provider-gate';
import type { ConnectionHealth } from '../../src/core/providers/router';
import { ProviderError } from '../../src/core/providers/types';

const base = { origin: 'https://api.openai.com', sandbox: false, weight: 1 } as const;

test('the gate counts each connection’s calls and vendor failures over 5 minutes (a refused request is not a failure)', async () => {
  let now = Date.UTC(2026, 2, 1, 12, 0, 0);
  const gate = new ProviderGate({ concurrency: 2, failureThreshold: 5, cooldownMs: 30_000, now: () => now });
  const a = { provider: 'openai', index: 0 } as const;
  const b = { provider: 'openai', index: 1 } as const;
  expect(gate.state(a)).toMatchObject({ calls5m: 0, errorRate5m: null });
  await gate.attempt(a, async () => 'ok');
  gate.observe(a, new ProviderError('overloaded', 'busy', 'openai', 503));
  gate.observe(a, new ProviderError('bad_request', 'bad size', 'openai', 400));
  now += 4 * 60_000;
  gate.observe(a, new ProviderError('timeout', 'slow', 'openai'));
  expect(gate.state(a)).toMatchObject({ state: 'closed', calls5m: 4, errorRate5m: 0.5 });
  expect(gate.state(b)).toMatchObject({ calls5m: 0, errorRate5m: null });
  now += 60_000; // the first minute's three calls age out
  expect(gate.state(a)).toMatchObject({ calls5m: 1, errorRate5m: 1 });
  now += 10 * 60_000;
  expect(gate.state(a)).toMatchObject({ calls5m: 0, errorRate5m: null });
});

test('breaker states, quota pause and the number of keys per vendor', () => {
  const now = 1_000_000;
  const rows: ConnectionHealth[] = [
    { ...base, provider: 'openai', index: 0, state: 'closed', failures: 1, calls5m: 10, errorRate5m: 0.1 },
    { ...base, provider: 'openai', index: 1, state: 'open', failures: 5, retryAt: now + 5_000, calls5m: 5, errorRate5m: 1 },
    { ...base, provider: 'openai', index: 2, state: 'open', failures: 5, retryAt: now - 1, calls5m: 5, errorRate5m: 1 },
    { ...base, provider: 'anthropic', index: 0, state: 'quota_paused', failures: 0, retryAt: now + 600_000, calls5m: 1, errorRate5m: 1 },
  ];
  const health = vendorHealth(rows, now);
  expect(health.map((h) => [h.vendor, h.connection, h.breaker, h.keys])).toEqual([
    ['openai', 0, 'closed', 3],
    ['openai', 1, 'open', 3],
    ['openai', 2, 'half_open', 3],
    ['anthropic', 0, 'open', 1],
  ]);
  expect(health[3]!.quotaPausedUntil).toEqual(new Date(now + 600_000));
  expect(health[1]!.quotaPausedUntil).toBeNull();
});
