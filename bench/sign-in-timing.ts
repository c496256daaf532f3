/**
 * Does a failed sign-in answer faster for an email nobody registered (issue 24: account enumeration by timing)?
 * Run: `npm run bench:sign-in`. Starts the built service the way an operator does (`node dist/src/main.js`,
 * production mode, a fresh database on the tests' PostgreSQL), registers SIGN_IN_SAMPLES accounts, then sends one
 * wrong password per known email and per unknown email, interleaved and alternating which goes first, each from an
 * address of its own (TRUST_PROXY=loopback) so no per-IP limit or lockout interferes. Prints the medians and
 * quartiles of both, their difference, and how often a random relabelling of the same samples differs as much (a
 * permutation test: a large share means the difference is noise); writes bench/sign-in-timing-results.md.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Child, freePort } from './lib/child';
import { BenchDatabase, serviceEnv } from './lib/service-fixture';
import { median, percentile } from './lib/stats';

const ROOT = path.resolve(__dirname, '..', '..');
const SAMPLES = Number(process.env.SIGN_IN_SAMPLES ?? 30);
const WARMUP = 5;
const SHUFFLES = 10_000;
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const log = (msg: string) => process.stderr.write(`[sign-in-timing] ${msg}\n`);
let addressCounter = 0;
/** A client address of its own for every request: 10.77.x.y, never repeated within a run. */
const nextAddress = () => `10.77.${Math.floor(++addressCounter / 250)}.${(addressCounter % 250) + 1}`;

async function post(base: string, route: string, body: unknown): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': nextAddress() },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

async function failedSignIn(base: string, email: string): Promise<number> {
  const { status, ms } = await post(base, '/api/v2/auth/login', { email, password: 'not the password' });
  if (status !== 401) throw new Error(`a wrong password for ${email} answered ${status}, not 401`);
  return ms;
}

/** Share of random relabellings of the pooled samples whose median difference is at least the observed one. */
function permutationShare(a: readonly number[], b: readonly number[]): number {
  const observed = Math.abs(median(a) - median(b));
  const pooled = [...a, ...b];
  let asLarge = 0;
  for (let i = 0; i < SHUFFLES; i++) {
    for (let j = pooled.length - 1; j > 0; j--) {
      const k = crypto.randomInt(j + 1);
      [pooled[j], pooled[k]] = [pooled[k], pooled[j]];
    }
    if (Math.abs(median(pooled.slice(0, a.length)) - median(pooled.slice(a.length))) >= observed) asLarge++;
  }
  return asLarge / SHUFFLES;
}

const row = (name: string, xs: number[]) => {
  const sorted = [...xs].sort((p, q) => p - q);
  return `| ${name} | ${xs.length} | ${median(xs).toFixed(1)} | ${percentile(sorted, 25).toFixed(1)} | ${percentile(sorted, 75).toFixed(1)} |`;
};

async function main(): Promise<void> {
  const db = await BenchDatabase.create(ADMIN_URL);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-sign-in-'));
  const port = await freePort();
  const env = serviceEnv(process.env, { port, dataDir, databaseUrl: db.url, mockUrl: 'http://127.0.0.1:9' }, { TRUST_PROXY: 'loopback' });
  const service = Child.start('service', process.execPath, ['dist/src/main.js'], { env, cwd: ROOT });
  const base = `http://127.0.0.1:${port}`;
  try {
    await service.waitForHttp(`${base}/health`, 60_000, 200);
    const run = crypto.randomBytes(3).toString('hex');
    const known = Array.from({ length: SAMPLES + WARMUP }, (_, i) => `known-${run}-${i}@example.com`);
    log(`registering ${known.length} accounts`);
    for (const email of known) {
      const { status } = await post(base, '/api/v2/auth/register', { email, password: 'the right password' });
      if (status !== 201) throw new Error(`registering ${email} answered ${status}`);
    }
    const unknown = Array.from({ length: SAMPLES + WARMUP }, (_, i) => `nobody-${run}-${i}@example.com`);
    for (let i = 0; i < WARMUP; i++) {
      await failedSignIn(base, known[SAMPLES + i]);
      await failedSignIn(base, unknown[SAMPLES + i]);
    }
    const knownMs: number[] = [];
    const unknownMs: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      // Alternate which goes first, so a drift in the machine's load lands on both alike.
      if (i % 2 === 0) {
        knownMs.push(await failedSignIn(base, known[i]));
        unknownMs.push(await failedSignIn(base, unknown[i]));
      } else {
        unknownMs.push(await failedSignIn(base, unknown[i]));
        knownMs.push(await failedSignIn(base, known[i]));
      }
    }
    const difference = median(unknownMs) - median(knownMs);
    const share = permutationShare(knownMs, unknownMs);
    const report = [
      `## Failed sign-in time: known vs unknown email`,
      '',
      `${new Date().toISOString()}, ${os.cpus().length} cores, Node ${process.version}; \`npm run bench:sign-in\` ` +
        `(${SAMPLES} interleaved wrong-password sign-ins each, after ${WARMUP} of each to warm up).`,
      '',
      '| email | n | median ms | p25 ms | p75 ms |',
      '|---|---|---|---|---|',
      row('known (registered)', knownMs),
      row('unknown', unknownMs),
      '',
      `Median difference (unknown - known): ${difference.toFixed(1)} ms. ` +
        `${(share * 100).toFixed(1)} % of ${SHUFFLES} random relabellings of the same samples differ at least as much ` +
        `(${share >= 0.05 ? 'within noise' : 'more than noise'}).`,
      '',
    ].join('\n');
    process.stdout.write(`${report}\n`);
    fs.writeFileSync(path.join(ROOT, 'bench', 'sign-in-timing-results.md'), report);
  } finally {
    await service.stop();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
