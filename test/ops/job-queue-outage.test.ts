import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createBoss, JobQueue } from '../../src/jobs/boss';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { eventually, waitUntil } from '../support/wait';
import { buildOnce } from './service-process';

// Issue 34, finding 3: a PostgreSQL restart under load ended the process once in 17 restarts: pg-boss 10.4 records
// a worker batch's outcome (complete/fail) without awaiting it, the rejection went unhandled, and the service had
// no unhandledRejection handler. Here the queue's tables vanish (its schema renamed away) while a handler runs, so
// recording the outcome fails for certain, as it does when the database restarts at that moment.

let db: TestDatabase;
let queue: JobQueue;
const lines: string[] = [];
const log = pino(
  { level: 'debug' },
  new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  }),
);

beforeAll(async () => {
  db = await createTestDatabase();
  queue = createBoss(db.url, log);
  await queue.boss.start();
});
afterAll(async () => {
  queue.quiet();
  await queue.boss.stop({ graceful: false, wait: true }).catch(() => undefined);
  await db.drop();
});

test('a job outcome that cannot be recorded is reported as a queue error, never an unhandled rejection', async () => {
  const unhandled: unknown[] = [];
  const collect = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', collect);
  try {
    await queue.boss.createQueue('outage-probe');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let running = false;
    await queue.boss.work('outage-probe', { pollingIntervalSeconds: 0.5 }, async () => {
      running = true;
      await gate;
    });
    await queue.boss.send('outage-probe', {});
    await waitUntil(() => running, 10_000, 'the handler runs');

    await db.dataSource.query('ALTER SCHEMA pgboss RENAME TO pgboss_away');
    try {
      release();
      await eventually(
        () => lines.find((l) => /job queue error/.test(l) && /pgboss\.job|does not exist/.test(l)),
        10_000,
        'the error logged',
      );
      // A rejection nobody handles is reported on the next turns of the event loop: give it a few.
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    } finally {
      await db.dataSource.query('ALTER SCHEMA pgboss_away RENAME TO pgboss');
    }
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', collect);
  }
});

test('the process-level handler logs an unhandled rejection and keeps the process running', () => {
  // In a process of its own: the test runner handles rejections of its own test code.
  buildOnce();
  const guards = path.resolve(__dirname, '../../dist/src/process-guards.js');
  const out = execFileSync(
    process.execPath,
    [
      '-e',
      `require(${JSON.stringify(guards)}).keepRunningOnUnhandledRejection(require('pino')());
       void Promise.reject(new Error('nobody listens'));
       setTimeout(() => process.stdout.write('still running\\n'), 50);`,
    ],
    { cwd: path.resolve(__dirname, '../..'), encoding: 'utf8' },
  );
  expect(out).toMatch(/nobody listens.*keeps running/);
  expect(out).toContain('still running');
});
