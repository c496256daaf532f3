import pino from 'pino';
import { AnswersInFlight } from '../../src/core/generations/chat/answers-in-flight';
import { GenerationLeases } from '../../src/core/generations/settlement/leases';
import { countingSql } from '../support/counting-sql';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { waitUntil } from '../support/wait';

// Issue 42: every open answer refreshed its own lease every 2 s, so 1,000 open streams made ~500 UPDATEs a second
// (5,000 made 2,500) on the pool settlements use. The instance now refreshes all of its open answers in one
// statement per interval, each with its own delivered length (what a killed stream is billed on).

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const OPEN = 300;
const BEAT_MS = 100;

test('one heartbeat statement per interval carries every open answer’s delivered length', async () => {
  const sql = countingSql(db.dataSource);
  const leases = new GenerationLeases(sql, 'heartbeat-test');
  const ids = Array.from({ length: OPEN }, (_, i) => 9_000_000 + i);
  await db.dataSource.query(
    `INSERT INTO generation_leases (generation_id, instance_id, heartbeat_at)
     SELECT id, 'heartbeat-test', now() - interval '1 hour' FROM unnest($1::int[]) AS id`,
    [ids],
  );
  const answers = new AnswersInFlight(leases, pino({ level: 'silent' }), BEAT_MS);
  const delivered = new Map(ids.map((id, i) => [id, i * 3]));
  const finish: (() => void)[] = [];
  for (const id of ids) {
    const done = new Promise<void>((resolve) => finish.push(resolve));
    answers.follow(id, new AbortController(), done, () => delivered.get(id)!);
  }
  const before = sql.statements;
  const startedAt = Date.now();

  const fresh = async () => {
    const [row] = (await db.dataSource.query(
      `SELECT count(*)::int AS n FROM generation_leases
        WHERE instance_id = 'heartbeat-test' AND heartbeat_at > now() - interval '1 minute'`,
    )) as { n: number }[];
    return row!.n === OPEN;
  };
  await waitUntil(fresh, 10_000, 'every lease refreshed');
  const beats = sql.statements - before;
  const intervals = Math.ceil((Date.now() - startedAt) / BEAT_MS) + 1;
  // One statement per beat for all 300 answers, never one per answer.
  expect(beats).toBeGreaterThanOrEqual(1);
  expect(beats).toBeLessThanOrEqual(intervals);
  const rows = (await db.dataSource.query(
    `SELECT generation_id AS id, delivered_chars AS chars FROM generation_leases WHERE instance_id = 'heartbeat-test'`,
  )) as { id: number; chars: number }[];
  for (const r of rows) expect(r.chars).toBe(delivered.get(r.id));

  // Progress made later reaches the lease with a later beat.
  for (const id of ids) delivered.set(id, delivered.get(id)! + 1000);
  await waitUntil(
    async () => {
      const [row] = (await db.dataSource.query(
        `SELECT min(delivered_chars)::int AS least FROM generation_leases WHERE instance_id = 'heartbeat-test'`,
      )) as { least: number }[];
      return row!.least >= 1000;
    },
    10_000,
    'later progress on the leases',
  );

  for (const f of finish) f();
  await waitUntil(() => answers.size === 0, 5000, 'every answer done');
});

// Issue 42, round 3: each stream wrote its first output to its lease with an UPDATE of its own, so 5,000 streams
// opened within 5 s sent 5,000 statements on the pool settlements use. The first outputs noted together now share
// one statement, and a late one never lowers what a heartbeat already wrote.
test('first outputs noted together go to their leases in one statement, and never lower a lease', async () => {
  const sql = countingSql(db.dataSource);
  const leases = new GenerationLeases(sql, 'first-output-test');
  const ids = Array.from({ length: 2 * OPEN }, (_, i) => 9_100_000 + i);
  await db.dataSource.query(
    `INSERT INTO generation_leases (generation_id, instance_id, heartbeat_at)
     SELECT id, 'first-output-test', now() - interval '1 hour' FROM unnest($1::int[]) AS id`,
    [ids],
  );
  // No heartbeat within the test: only the notes write.
  const answers = new AnswersInFlight(leases, pino({ level: 'silent' }), 3_600_000);
  const noted = async (from: number, to: number) => {
    const [row] = (await db.dataSource.query(
      `SELECT count(*)::int AS n FROM generation_leases
        WHERE generation_id = ANY($1::int[]) AND delivered_chars = generation_id - 9100000 + 1`,
      [ids.slice(from, to)],
    )) as { n: number }[];
    return row!.n === to - from;
  };

  for (const id of ids.slice(0, OPEN)) answers.noteProgress(id, id - 9_100_000 + 1);
  await waitUntil(() => noted(0, OPEN), 10_000, 'the first burst on its leases');
  expect(sql.statements).toBe(1);

  // A second burst right after the first: it waits for the first statement's turn to pass, then goes as one.
  for (const id of ids.slice(OPEN)) answers.noteProgress(id, id - 9_100_000 + 1);
  await waitUntil(() => noted(OPEN, 2 * OPEN), 10_000, 'the second burst on its leases');
  expect(sql.statements).toBe(2);

  // A note that arrives after a later count was written leaves the later count.
  await leases.progressMany([{ generationId: ids[0]!, deliveredChars: 500 }]);
  await leases.progress(ids[0]!, 3);
  const [row] = (await db.dataSource.query(`SELECT delivered_chars AS chars FROM generation_leases WHERE generation_id = $1`, [
    ids[0],
  ])) as { chars: number }[];
  expect(row!.chars).toBe(500);
});
