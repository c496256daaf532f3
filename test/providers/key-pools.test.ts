import type { ServerResponse } from 'node:http';
import { getBalance } from '../../src/core/billing/ledger';
import { metricsRegistry } from '../../src/core/ops/metrics';
import { bflSandbox } from '../../src/sandbox/bfl';
import { openaiSandbox } from '../../src/sandbox/openai';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server';
import { sendJson, type SandboxHandler, type SandboxRequest } from '../../src/sandbox/types';
import { ApiHarness, startApi } from '../api/harness';

// A vendor with several keys: a 429 or a quota error moves the request to the next key, a 5xx fails over, each key
// has its own breaker; the request runs once at the vendor and is billed once. The vendors here are the OpenAI and
// BFL fakes behind a switch per key, reached as live vendors (keys set, base URL pointing at them).

interface Seen {
  key: string;
  method: string;
  path: string;
}

/** A vendor fake whose keys can be set to fail; it notes every request's key. */
function perKey(inner: SandboxHandler, keyOf: (req: SandboxRequest) => string) {
  const failing = new Map<string, { status: number; body: unknown }>();
  const seen: Seen[] = [];
  const handler: SandboxHandler = (req: SandboxRequest, res: ServerResponse) => {
    const key = keyOf(req);
    seen.push({ key, method: req.method, path: req.path });
    const failure = failing.get(key);
    if (failure) return sendJson(res, failure.status, failure.body);
    return inner(req, res);
  };
  return { handler, seen, failing };
}

const openai = perKey(openaiSandbox, (req) => String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
const bfl = perKey(bflSandbox, (req) => String(req.headers['x-key'] ?? ''));
const RATE_LIMITED = { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } };
const NO_CREDIT = {
  error: { message: 'You exceeded your current quota', type: 'insufficient_quota', param: null, code: 'insufficient_quota' },
};
const SERVER_ERROR = { error: { message: 'The server had an error', type: 'server_error', param: null, code: null } };

let vendors: SandboxServer;
let api: ApiHarness;

beforeAll(async () => {
  vendors = await startSandbox({ openai: openai.handler, bfl: bfl.handler });
  api = await startApi({
    OPENAI_API_KEY: 'sk-first,sk-second',
    OPENAI_BASE_URL: `${vendors.mountUrl('openai')}/v1`,
    BFL_API_KEY: 'bfl-first,bfl-second',
    BFL_BASE_URL: `${vendors.mountUrl('bfl')}/v1`,
    METRICS_TOKEN: 'metrics-token-0123456789',
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await vendors?.close();
});
beforeEach(() => {
  openai.seen.length = 0;
  openai.failing.clear();
  bfl.seen.length = 0;
  bfl.failing.clear();
});

const completions = (seen: Seen[]) => seen.filter((s) => s.method === 'POST' && s.path === '/v1/chat/completions').map((s) => s.key);

async function chat(key: string, body: Record<string, unknown>) {
  return api.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model: 'gpt-6-luna', max_tokens: 40, messages: [{ role: 'user', content: 'hello' }], ...body },
  });
}

/** The account's charges: ledger rows of its generations, and what its balance lost. */
async function charges(userId: number) {
  const rows: { kind: string; n: string }[] = await api.db.dataSource.query(
    `SELECT kind, count(*) AS n FROM ledger_entries WHERE user_id = $1 AND reference LIKE 'gen:%' GROUP BY kind ORDER BY kind`,
    [userId],
  );
  return Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)]));
}

test('a 429 on the first key moves the request to the second: one run at the vendor, one charge', async () => {
  const account = await api.account('vip', { planTokens: 100_000 });
  const key = await api.apiKey(account);
  const before = await getBalance(api.db.dataSource, account.user.id);
  // The rotation starts on either key: fail both turns' first choice in two requests.
  openai.failing.set('sk-first', { status: 429, body: RATE_LIMITED });
  const answers = [await chat(key, {}), await chat(key, {})];
  for (const a of answers) {
    expect(a.status).toBe(200);
    expect(a.body.choices[0].message.content).toEqual(expect.any(String));
  }
  // Each request was refused at most once by the first key and then run exactly once, by the second.
  const tried = completions(openai.seen);
  expect(tried.filter((k) => k === 'sk-second')).toHaveLength(2);
  expect(tried.filter((k) => k === 'sk-first').length).toBeGreaterThanOrEqual(1);
  expect(tried.filter((k) => k === 'sk-first').length).toBeLessThanOrEqual(2);

  const gens: { status: string; tokens_spent: number }[] = await api.db.dataSource.query(
    'SELECT status, tokens_spent FROM generations WHERE user_id = $1',
    [account.user.id],
  );
  expect(gens.map((g) => g.status)).toEqual(['completed', 'completed']);
  expect(await charges(account.user.id)).toEqual({ reserve: 2, settle: 2 });
  const after = await getBalance(api.db.dataSource, account.user.id);
  expect(before.total - after.total).toBe(gens.reduce((n, g) => n + g.tokens_spent, 0));
});

test('a 5xx fails over, streamed and not; a failure after the first byte is not run again elsewhere', async () => {
  const account = await api.account('vip', { planTokens: 100_000 });
  const key = await api.apiKey(account);
  openai.failing.set('sk-second', { status: 500, body: SERVER_ERROR });
  const whole = await chat(key, {});
  const streamed = await chat(key, { stream: true });
  expect([whole.status, streamed.status]).toEqual([200, 200]);
  expect(streamed.text).toContain('data: [DONE]');
  expect(completions(openai.seen).filter((k) => k === 'sk-first')).toHaveLength(2);

  // The vendor starts answering, then breaks off: that request ran; it is not sent to the other key.
  openai.failing.clear();
  openai.seen.length = 0;
  const broken = await chat(key, { messages: [{ role: 'user', content: '[[fail:midstream]] go' }] });
  expect(broken.status).toBeGreaterThanOrEqual(500);
  const brokenStream = await chat(key, { stream: true, messages: [{ role: 'user', content: '[[fail:midstream]] go' }] });
  expect(brokenStream.status).toBe(200);
  expect(completions(openai.seen)).toHaveLength(2);
  expect(await charges(account.user.id)).toMatchObject({ reserve: 4 });
});

test('a quota error pauses that key alone: the next requests go to the other; its state shows, never its key', async () => {
  const account = await api.account('vip', { planTokens: 100_000 });
  const key = await api.apiKey(account);
  openai.failing.set('sk-first', { status: 429, body: NO_CREDIT });
  for (let i = 0; i < 4; i++) expect((await chat(key, {})).status).toBe(200);
  // Refused once, then paused: the other three requests never tried it.
  expect(completions(openai.seen).filter((k) => k === 'sk-first').length).toBeLessThanOrEqual(1);
  expect(completions(openai.seen).filter((k) => k === 'sk-second')).toHaveLength(4);

  const health = api.services.router.health().filter((c) => c.provider === 'openai');
  expect(health).toEqual([
    expect.objectContaining({ index: 0, state: 'quota_paused', origin: new URL(vendors.origin).origin, weight: 1, sandbox: false }),
    expect.objectContaining({ index: 1, state: 'closed' }),
  ]);
  expect(JSON.stringify(api.services.router.health())).not.toMatch(/sk-first|sk-second/);

  const metrics = await metricsRegistry.metrics();
  expect(metrics).toContain('nebula_provider_connection_state{provider="openai",connection="0"} 2');
  expect(metrics).toContain('nebula_provider_connection_state{provider="openai",connection="1"} 0');
  expect(metrics).toMatch(/nebula_provider_failovers_total\{provider="openai",connection="0",reason="quota"\} [1-9]/);
  expect(metrics).not.toMatch(/sk-first|sk-second/);
});

test('weights share out the first tries: 3:1 over eight requests', async () => {
  const weighted = await startApi({
    OPENAI_API_KEY: 'sk-first,sk-second',
    OPENAI_BASE_URL: `${vendors.mountUrl('openai')}/v1`,
    OPENAI_WEIGHTS: '3,1',
  });
  try {
    const account = await weighted.account('vip', { planTokens: 100_000 });
    const key = await weighted.apiKey(account);
    for (let i = 0; i < 8; i++) {
      const res = await weighted.request('POST', '/v1/chat/completions', {
        token: key,
        body: { model: 'gpt-6-luna', max_tokens: 20, messages: [{ role: 'user', content: `hi ${i}` }] },
      });
      expect(res.status).toBe(200);
    }
    const tried = completions(openai.seen);
    expect(tried.filter((k) => k === 'sk-first')).toHaveLength(6);
    expect(tried.filter((k) => k === 'sk-second')).toHaveLength(2);
  } finally {
    await weighted.close();
  }
});

test('a media job accepted on the second key after a 429 on the first is polled on the second', async () => {
  const account = await api.account('vip', { planTokens: 100_000 });
  const key = await api.apiKey(account);
  bfl.failing.set('bfl-first', { status: 429, body: { detail: 'You have exceeded the number of active tasks' } });
  for (let i = 0; i < 2; i++) {
    const res = await api.request('POST', '/api/v2/generate', { token: key, body: { model: 'flux-dev', prompt: `a lighthouse ${i}` } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
  }
  const submits = bfl.seen.filter((s) => s.method === 'POST');
  const polls = bfl.seen.filter((s) => s.path === '/v1/get_result');
  expect(submits.filter((s) => s.key === 'bfl-second')).toHaveLength(2);
  expect(polls.length).toBeGreaterThan(0);
  expect(new Set(polls.map((p) => p.key))).toEqual(new Set(['bfl-second']));
  const rows: { upstream_connection: string }[] = await api.db.dataSource.query(
    'SELECT upstream_connection FROM generations WHERE user_id = $1',
    [account.user.id],
  );
  const second = api.services.connections.pool('bfl', 'flux-dev')[1]!.id;
  expect(rows.map((r) => r.upstream_connection)).toEqual([second, second]);
  expect(await charges(account.user.id)).toEqual({ reserve: 2, settle: 2 });
});
