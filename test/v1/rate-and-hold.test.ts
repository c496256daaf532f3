import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { ApiHarness, avoidWindowEdge, startApi } from '../api/harness';

// The rate check and the token hold of a chat request run at the same time; a refused request's hold is
// withdrawn (released in full, its pending generation deleted). Hammered in parallel past the limit, nothing
// may be left held, and the books must balance.

let api: ApiHarness;
const LIMIT = 10;

beforeAll(async () => {
  api = await startApi();
  await api.db.dataSource.query(`UPDATE plans SET rate_limit_hourly = $1 WHERE slug = 'vip'`, [LIMIT]);
  api.services.plans.invalidate();
});
afterAll(() => api.close());

async function count(sql: string, params: unknown[]): Promise<number> {
  const rows: { n: string }[] = await api.db.dataSource.query(sql, params);
  return Number(rows[0].n);
}

test('a VIP over its limit in parallel: exactly the limit answered, the rest 429, no hold left behind, books balanced', async () => {
  await avoidWindowEdge(3600, 10);
  const account = await api.account('vip', { planTokens: 100_000, bonusTokens: 50 });
  const key = await api.apiKey(account);
  const userId = account.user.id;
  const before = await getBalance(api.db.dataSource, userId);

  const sent = 4 * LIMIT;
  const answers = await Promise.all(
    Array.from({ length: sent }, (_, i) =>
      api.request('POST', '/v1/chat/completions', {
        token: key,
        body: { model: 'gpt-6-luna', messages: [{ role: 'user', content: `hello ${i}` }], max_tokens: 50, stream: i % 2 === 1 },
      }),
    ),
  );
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
  expect(statuses.filter((s) => s === 429)).toHaveLength(sent - LIMIT);
  for (const refused of answers.filter((a) => a.status === 429)) {
    expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  }

  expect(await count(`SELECT count(*) AS n FROM token_reservations WHERE user_id = $1 AND status = 'reserved'`, [userId])).toBe(0);
  const byStatus: { status: string; n: string }[] = await api.db.dataSource.query(
    'SELECT status, count(*) AS n FROM generations WHERE user_id = $1 GROUP BY status',
    [userId],
  );
  // Refused requests leave no history entry: only the answered ones are generations.
  expect(byStatus.map((r) => [r.status, Number(r.n)])).toEqual([['completed', LIMIT]]);
  expect(
    await count(
      `SELECT count(*) AS n FROM generation_leases l WHERE NOT EXISTS (SELECT 1 FROM generations g WHERE g.id = l.generation_id)`,
      [],
    ),
  ).toBe(0);

  // Every hold that was made is settled or released, once.
  const reserves = await count(`SELECT count(*) AS n FROM ledger_entries WHERE user_id = $1 AND kind = 'reserve'`, [userId]);
  const settles = await count(`SELECT count(*) AS n FROM ledger_entries WHERE user_id = $1 AND kind = 'settle'`, [userId]);
  const releases = await count(`SELECT count(*) AS n FROM ledger_entries WHERE user_id = $1 AND kind = 'release'`, [userId]);
  expect(settles).toBe(LIMIT);
  expect(reserves).toBe(settles + releases);
  expect(releases).toBeLessThanOrEqual(sent - LIMIT);

  const after = await getBalance(api.db.dataSource, userId);
  expect(await ledgerTotals(api.db.dataSource, userId)).toEqual({ plan: after.planTokens, bonus: after.bonusTokens });
  const spent = await count('SELECT coalesce(sum(tokens_spent), 0) AS n FROM generations WHERE user_id = $1', [userId]);
  expect(spent).toBeGreaterThan(0);
  expect(after.total).toBe(before.total - spent);
});
