import { JsonStore } from '../../src/core/sessions/json-store';
import { createTestDatabase, TestDatabase } from '../support/databases';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

test('reads, writes (upserting) and deletes jsonb values under its prefix', async () => {
  const sessions = new JsonStore<{ chat: { messages: string[] }; n: number }>(db.dataSource, 'session:');
  const conversations = new JsonStore<{ v: number }>(db.dataSource, 'conversation:');
  expect(await sessions.read('42')).toBeUndefined();
  await sessions.write('42', { chat: { messages: ['hi'] }, n: 1 });
  await sessions.write('42', { chat: { messages: ['hi', 'there'] }, n: 2 });
  await conversations.write('42', { v: 7 });
  expect(await sessions.read('42')).toEqual({ chat: { messages: ['hi', 'there'] }, n: 2 });
  expect(await conversations.read('42')).toEqual({ v: 7 });
  expect(await sessions.has('42')).toBe(true);
  const rows = await db.dataSource.query<{ key: string }[]>('SELECT key FROM bot_sessions ORDER BY key');
  expect(rows.map((r) => r.key)).toEqual(['conversation:42', 'session:42']);
  await sessions.delete('42');
  expect(await sessions.read('42')).toBeUndefined();
  expect(await conversations.read('42')).toEqual({ v: 7 });
});

test('a second instance (another process) sees the same state', async () => {
  const a = new JsonStore<{ step: string }>(db.dataSource, 'session:');
  const b = new JsonStore<{ step: string }>(db.dataSource, 'session:');
  await a.write('7', { step: 'size' });
  expect(await b.read('7')).toEqual({ step: 'size' });
});

test('purging removes only old rows of its own prefix', async () => {
  const sessions = new JsonStore<{ x: number }>(db.dataSource, 'session:');
  const other = new JsonStore<{ x: number }>(db.dataSource, 'conversation:');
  await sessions.write('old', { x: 1 });
  await sessions.write('new', { x: 2 });
  await other.write('old', { x: 3 });
  await db.dataSource.query(
    `UPDATE bot_sessions SET updated_at = now() - interval '40 days' WHERE key IN ('session:old', 'conversation:old')`,
  );
  expect(await sessions.purgeOlderThan(30)).toBe(1);
  expect(await sessions.read('old')).toBeUndefined();
  expect(await sessions.read('new')).toEqual({ x: 2 });
  expect(await other.read('old')).toEqual({ x: 3 });
});
