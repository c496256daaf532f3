import pino from 'pino';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { Queryable } from '../../src/core/billing/queryable';
import { BalanceHints } from '../../src/core/generations/chat/balance-hints';
import { ChatSettlement, ChatSettlementDeps } from '../../src/core/generations/chat/settlement';
import { GenerationBilling } from '../../src/core/generations/settlement/billing-batches';
import type { Actor } from '../../src/core/generations/service';
import { FastSql } from '../../src/db/fast-sql';
import { createTestDatabase, TestDatabase } from '../support/databases';

// Issue 42, finding 2: at c=1 with a vendor that waits 20 ms, the vendor request left on average 0.5 ms (p75
// 0.8 ms) after the call was started. undici writes a request on a reused keep-alive connection in the turn's
// check phase (setImmediate: it first lets a FIN or stray bytes on the idle socket be seen), and the hold's
// group commit had queued its statement there first: the request waited behind the hold's statement, and often
// behind PostgreSQL taking the CPU to run it. When the vendor call goes out beside the hold, the hold statement
// now waits for the next check phase.

let db: TestDatabase;
let holds: { sql: FastSql; close: () => Promise<void> };

beforeAll(async () => {
  db = await createTestDatabase();
  holds = FastSql.asyncCommitPool(db.url);
});
afterAll(async () => {
  await holds.close();
  await db.drop();
});

async function order(holdAfterTurn: boolean): Promise<string[]> {
  const seen: string[] = [];
  const holdSql: Queryable = {
    query: (text, params) => {
      seen.push('hold statement');
      return holds.sql.query(text, params);
    },
  };
  const plans = new PlanDirectory(db.dataSource);
  const user = await createUser(db.dataSource, plans, { name: 'H', plan: 'elite', planTokens: 10_000, bonusTokens: 0 });
  const decision = { allowed: true };
  const deps = {
    ds: db.dataSource,
    billing: new GenerationBilling({ holdSql, sql: FastSql.of(db.dataSource) }),
    limiter: { admit: async () => decision },
    log: pino({ level: 'silent' }),
    outbox: {},
    balances: new BalanceHints(),
  } as unknown as ChatSettlementDeps;
  const actor = { user: { id: user.id }, plan: {} } as unknown as Actor;
  const generation = {
    userId: user.id,
    modelSlug: 'gpt-6-luna',
    category: 'text',
    source: 'v1',
    prompt: 'hi',
    params: {},
    tokensReserved: 100,
    etaSeconds: 2,
    delivery: null,
    sandbox: false,
    deadlineAt: new Date(Date.now() + 60_000),
  };
  const { rated, admitted } = new ChatSettlement(deps).admit(
    actor,
    generation,
    { instanceId: 'order-test', promptTokens: 1 },
    { holdAfterTurn },
  );
  // What the early vendor call does once the rate check passed: undici queues the request's write for the check phase.
  await rated;
  setImmediate(() => seen.push('vendor request'));
  const opened = await admitted;
  expect(opened.id).toBeGreaterThan(0);
  return seen;
}

test('a vendor request started beside the hold is written before the hold statement', async () => {
  expect(await order(true)).toEqual(['vendor request', 'hold statement']);
  // Without it (a hold whose vendor call waits for it), the hold goes out in this turn, as before.
  expect(await order(false)).toEqual(['hold statement', 'vendor request']);
});
