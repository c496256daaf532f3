import { GENERATION_STEP } from '../../src/jobs/boss';
import { metricsRegistry } from '../../src/core/ops/metrics';
import { getBalance } from '../../src/core/billing/ledger';
import { deleteExpiredResults } from '../../src/core/generations/media/retention';
import { syntheticImage } from '../../src/sandbox/synthetic';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { LocalS3, startLocalS3 } from '../support/s3';
import { accountWithToken, Instance, startInstance } from './instance';

// Two instances on one database and one S3 bucket: any instance serves any result (with Range and ETag), and a
// job's steps can run on either instance, because its input files are in the bucket too.

let db: TestDatabase;
let s3: LocalS3;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  db = await createTestDatabase();
  s3 = await startLocalS3();
  [a, b] = await Promise.all([startInstance({ databaseUrl: db.url, env: s3.env }), startInstance({ databaseUrl: db.url, env: s3.env })]);
  // The queues run (jobs are accepted) but no worker takes them: the test drives the steps itself.
  for (const i of [a, b]) {
    await i.services.boss.start();
    await i.services.boss.createQueue(GENERATION_STEP);
  }
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await s3?.close();
  await db?.drop();
});

async function post(instance: Instance, token: string, body: unknown): Promise<any> {
  const res = await fetch(`${instance.baseUrl}/api/v2/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

test('a result made on A is served by B: whole, by Range (206), and 304 on a matching ETag; retention deletes it in S3', async () => {
  const { token } = await accountWithToken(db.dataSource, a, 'basic', 200);
  const g = await post(a, token, { model: 'flux-dev', prompt: 'a lighthouse', format: 'png' });
  expect(g.status).toBe('completed');
  const filePath = new URL(g.result_url).pathname;
  expect(await metricsRegistry.getSingleMetricAsString('nebula_generations_total')).toMatch(/model="flux-dev",status="completed"} [1-9]/);

  const whole = await fetch(`${a.baseUrl}${filePath}`);
  expect(whole.status).toBe(200);
  const bytes = Buffer.from(await whole.arrayBuffer());
  expect(bytes.length).toBeGreaterThan(200);
  expect(whole.headers.get('accept-ranges')).toBe('bytes');
  const etag = whole.headers.get('etag');
  expect(etag).toMatch(/^"/);

  const part = await fetch(`${b.baseUrl}${filePath}`, { headers: { Range: 'bytes=100-199' } });
  expect(part.status).toBe(206);
  expect(part.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
  expect(part.headers.get('content-type')).toBe('image/png');
  expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(100, 200));

  const tail = await fetch(`${b.baseUrl}${filePath}`, { headers: { Range: 'bytes=-10' } });
  expect(tail.status).toBe(206);
  expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 10));

  const beyond = await fetch(`${b.baseUrl}${filePath}`, { headers: { Range: `bytes=${bytes.length + 5}-` } });
  expect(beyond.status).toBe(416);
  expect(beyond.headers.get('content-range')).toBe(`bytes */${bytes.length}`);

  const cached = await fetch(`${b.baseUrl}${filePath}`, { headers: { 'If-None-Match': etag! } });
  expect(cached.status).toBe(304);
  expect(cached.headers.get('etag')).toBe(etag);

  await db.dataSource.query(`UPDATE generations SET expires_at = now() - interval '1 minute' WHERE id = $1`, [g.id]);
  expect(await deleteExpiredResults(db.dataSource, b.services.storage)).toBe(1);
  expect(await a.services.storage.exists(filePath.slice('/files/'.length))).toBe(false);
  expect((await fetch(`${a.baseUrl}${filePath}`)).status).toBe(410);
});

test('a job with an input image completes when its steps alternate between the instances', async () => {
  const { userId, token } = await accountWithToken(db.dataSource, a, 'basic', 300);
  const image = `data:image/png;base64,${(await syntheticImage(64, 64, 'in')).toString('base64')}`;
  const g = await post(a, token, { model: 'kling-v2.1', prompt: 'a dancing robot', image_url: image });
  expect(g.status).toBe('pending');
  const [{ params }] = await db.dataSource.query(`SELECT params FROM generations WHERE id = $1`, [g.id]);
  const inputKey = params.inputKeys[0] as string;
  expect(await b.services.storage.exists(inputKey)).toBe(true);

  const ran: string[] = [];
  let delay: number | null = 0;
  for (let step = 0; delay !== null && step < 100; step++) {
    const instance = step % 2 === 0 ? b : a;
    ran.push(instance === a ? 'A' : 'B');
    delay = await instance.services.generations.advance(g.id);
    if (delay !== null) await new Promise((r) => setTimeout(r, Math.min(delay!, 300)));
  }
  expect(ran.slice(0, 2)).toEqual(['B', 'A']);
  const [row] = await db.dataSource.query(`SELECT status, tokens_spent, result_key FROM generations WHERE id = $1`, [g.id]);
  expect(row.status).toBe('completed');
  expect((await getBalance(db.dataSource, userId)).total).toBe(300 - row.tokens_spent);
  // Served from either instance; the input file is gone once the job finished.
  expect((await fetch(`${a.baseUrl}/files/${row.result_key}`)).headers.get('content-type')).toBe('video/mp4');
  expect((await fetch(`${b.baseUrl}/files/${row.result_key}`)).status).toBe(200);
  expect(await a.services.storage.exists(inputKey)).toBe(false);
}, 40_000);
