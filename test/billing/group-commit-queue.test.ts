import { GroupCommit, GroupCommitOptions, ItemResult } from '../../src/core/billing/group-commit';
import { isRefusedStatement } from '../../src/db/transaction';

// The queue alone, with plain functions standing for the statements (the SQL is covered in group-commit.test.ts).

function recorder(overrides: Partial<GroupCommitOptions<number, number>> = {}) {
  const batches: number[][] = [];
  const alone: number[] = [];
  const queue = new GroupCommit<number, number>({
    maxBatch: 64,
    maxInFlight: 1,
    canRetryAlone: isRefusedStatement,
    runBatch: async (items) => {
      batches.push([...items]);
      return items.map((i): ItemResult<number> => (i < 0 ? { ok: false, error: new Error(`refused ${i}`) } : { ok: true, value: i * 10 }));
    },
    runOne: async (item) => {
      alone.push(item);
      if (item < 0) throw new Error(`refused ${item}`);
      return item * 10;
    },
    ...overrides,
  });
  return { queue, batches, alone };
}

test('calls made in the same turn go out as one batch, and each caller gets its own outcome', async () => {
  const { queue, batches, alone } = recorder();
  const results = await Promise.allSettled([1, -2, 3].map((i) => queue.submit(i)));
  expect(batches).toEqual([[1, -2, 3]]);
  expect(alone).toEqual([]);
  expect(results[0]).toEqual({ status: 'fulfilled', value: 10 });
  expect((results[1] as PromiseRejectedResult).reason.message).toBe('refused -2');
  expect(results[2]).toEqual({ status: 'fulfilled', value: 30 });
});

test('a lone call runs as the single statement', async () => {
  const { queue, batches, alone } = recorder();
  expect(await queue.submit(4)).toBe(40);
  expect(batches).toEqual([]);
  expect(alone).toEqual([4]);
});

test('batches hold at most maxBatch items; calls arriving while the batches run form the next one', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const batches: number[][] = [];
  const queue = new GroupCommit<number, number>({
    maxBatch: 3,
    maxInFlight: 1,
    canRetryAlone: isRefusedStatement,
    runBatch: async (items) => {
      batches.push([...items]);
      await gate;
      return items.map((i) => ({ ok: true, value: i }));
    },
    runOne: async (i) => i,
  });
  const first = [1, 2, 3, 4, 5].map((i) => queue.submit(i));
  await new Promise((r) => setImmediate(r));
  const later = [6, 7].map((i) => queue.submit(i));
  release();
  expect(await Promise.all([...first, ...later])).toEqual([1, 2, 3, 4, 5, 6, 7]);
  // 7 was left alone after the second batch filled up, so it ran as the single statement.
  expect(batches).toEqual([
    [1, 2, 3],
    [4, 5, 6],
  ]);
});

test('a batch refused as a whole is retried item by item, so only the bad item fails', async () => {
  const { queue, alone } = recorder({
    runBatch: async () => {
      throw Object.assign(new Error('invalid byte sequence'), { severity: 'ERROR', code: '22021' });
    },
  });
  const results = await Promise.allSettled([5, -6, 7].map((i) => queue.submit(i)));
  expect(alone.sort()).toEqual([-6, 5, 7]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
});

test('when the commit is in doubt, every call of the batch fails with that error and nothing runs again', async () => {
  const lost = new Error('Connection terminated unexpectedly');
  const { queue, alone } = recorder({
    runBatch: async () => {
      throw lost;
    },
  });
  const results = await Promise.allSettled([1, 2, 3].map((i) => queue.submit(i)));
  expect(alone).toEqual([]);
  for (const r of results) expect(r).toEqual({ status: 'rejected', reason: lost });
});
