import { findModel } from '../../src/core/catalog/catalog';
import { priceChatUsage } from '../../src/core/catalog/pricing';
import { ProviderError } from '../../src/core/providers/types';
import { normalizeGenerateParams } from '../../src/core/catalog/params';
import { quoteGeneration } from '../../src/core/catalog/pricing';
import { anthropicSandbox } from '../../src/sandbox/anthropic';
import { bflSandbox } from '../../src/sandbox/bfl';
import { sendJson, type SandboxHandler } from '../../src/sandbox/types';
import { ApiHarness, startApi } from '../api/harness';

// `models` (OpenRouter's fallback list) on the three /v1 chat surfaces: when the first model cannot serve before
// its first byte, the next one answers; the answer and the generation name the model that served, billed at its
// price; a key's model list applies to each. Claude's vendor is down here (Anthropic's documented 529).

let anthropic: 'down' | 'refusing' | 'up' = 'down';
let anthropicCalls = 0;
const claude: SandboxHandler = (req, res) => {
  anthropicCalls += 1;
  if (anthropic === 'down') return sendJson(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  if (anthropic === 'refusing') {
    return sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'messages: roles must alternate' } });
  }
  return anthropicSandbox(req, res);
};
let bflDown = true;
let bflCalls = 0;
const flux: SandboxHandler = (req, res) => {
  bflCalls += 1;
  if (bflDown) return sendJson(res, 503, { detail: 'Service temporarily unavailable' });
  return bflSandbox(req, res);
};
let api: ApiHarness;
let key: string;
let userId: number;

beforeAll(async () => {
  api = await startApi({}, { handlers: { anthropic: claude, bfl: flux } });
  const account = await api.account('vip', { planTokens: 1_000_000 });
  userId = account.user.id;
  key = await api.apiKey(account);
}, 60_000);
afterAll(() => api?.close());
beforeEach(() => {
  anthropic = 'down';
  anthropicCalls = 0;
  bflDown = true;
  bflCalls = 0;
  api.services.gate.observe({ provider: 'bfl', index: 0 }, null);
  // Each test starts with Claude's circuit closed (the earlier ones' failures would have opened it).
  api.services.gate.observe({ provider: 'anthropic', index: 0 }, null);
});

const PRIMARY = 'claude-haiku-4-5';
const FALLBACK = 'gpt-6-luna';

async function lastGeneration(): Promise<{ model_slug: string; status: string; tokens_spent: number }> {
  const rows = await api.db.dataSource.query(
    'SELECT model_slug, status, tokens_spent FROM generations WHERE user_id = $1 ORDER BY id DESC LIMIT 1',
    [userId],
  );
  return rows[0];
}

/** The served model's price for the usage the answer reports. */
function priceOf(slug: string, promptTokens: number, completionTokens: number): number {
  return priceChatUsage(findModel(slug)!, { promptTokens, completionTokens });
}

test('chat completions: the vendor down, the fallback answers; the answer and the generation name it, at its price', async () => {
  const res = await api.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model: PRIMARY, models: [FALLBACK], max_tokens: 30, messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(res.status).toBe(200);
  expect(res.body.model).toBe(FALLBACK);
  expect(anthropicCalls).toBeGreaterThan(0);
  const gen = await lastGeneration();
  expect(gen).toMatchObject({ model_slug: FALLBACK, status: 'completed' });
  expect(gen.tokens_spent).toBe(priceOf(FALLBACK, res.body.usage.prompt_tokens, res.body.usage.completion_tokens));
  expect(res.body.service.tokens_spent).toBe(gen.tokens_spent);

  const streamed = await api.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model: PRIMARY, models: [FALLBACK], max_tokens: 30, stream: true, messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(streamed.status).toBe(200);
  const chunks = streamed.text
    .split('\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)) as { model: string });
  expect(chunks.length).toBeGreaterThan(0);
  expect(new Set(chunks.map((c) => c.model))).toEqual(new Set([FALLBACK]));
  expect(await lastGeneration()).toMatchObject({ model_slug: FALLBACK, status: 'completed' });
});

test('responses and messages: the fallback answers and is named, streamed or not', async () => {
  const response = await api.request('POST', '/v1/responses', {
    token: key,
    body: { model: PRIMARY, models: [FALLBACK], input: 'hello', max_output_tokens: 30, store: false },
  });
  expect(response.status).toBe(200);
  expect(response.body.model).toBe(FALLBACK);
  expect(await lastGeneration()).toMatchObject({ model_slug: FALLBACK, status: 'completed' });

  const message = await api.request('POST', '/v1/messages', {
    token: key,
    body: { model: PRIMARY, models: [FALLBACK], max_tokens: 30, messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(message.status).toBe(200);
  expect(message.body.model).toBe(FALLBACK);

  const streamed = await api.request('POST', '/v1/messages', {
    token: key,
    body: { model: PRIMARY, models: [FALLBACK], max_tokens: 30, stream: true, messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(streamed.status).toBe(200);
  const start = streamed.text.split('\n').find((l) => l.startsWith('data: {"type":"message_start"'));
  expect(JSON.parse(start!.slice(6)).message.model).toBe(FALLBACK);
  expect(await lastGeneration()).toMatchObject({ model_slug: FALLBACK, status: 'completed' });
});

test('the first model serves when it can; a bad request is not tried elsewhere', async () => {
  anthropic = 'up';
  const res = await api.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model: PRIMARY, models: [FALLBACK], max_tokens: 30, messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(res.status).toBe(200);
  expect(res.body.model).toBe(PRIMARY);
  expect(await lastGeneration()).toMatchObject({ model_slug: PRIMARY });

  // The vendor refuses the request itself: another model would be asked the same, so none is.
  anthropic = 'refusing';
  const refused = await api.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model: PRIMARY, models: [FALLBACK], max_tokens: 30, messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(refused.status).toBeGreaterThanOrEqual(400);
  expect(await lastGeneration()).toMatchObject({ model_slug: PRIMARY, status: 'failed', tokens_spent: 0 });

  // Unknown or unusable models in the list are refused before anything runs.
  const unknown = await api.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model: PRIMARY, models: ['no-such-model'], messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(unknown.status).toBe(404);
});

test("a key's model list applies to every model of the list", async () => {
  const account = await api.account('vip', { planTokens: 100_000 });
  const created = await api.request('POST', '/api/v2/keys', {
    token: await api.accessToken(account),
    body: { name: 'claude only', models: [PRIMARY] },
  });
  expect(created.status).toBe(201);
  const res = await api.request('POST', '/v1/chat/completions', {
    token: created.body.key,
    body: { model: PRIMARY, models: [FALLBACK], messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(res.status).toBe(403);
  expect(res.body.error.code).toBe('model_not_allowed');
  expect(anthropicCalls).toBe(0);
});

test('a provider already known to be down is skipped before any call', async () => {
  for (let i = 0; i < 5; i++)
    api.services.gate.observe({ provider: 'anthropic', index: 0 }, new ProviderError('overloaded', 'x', 'anthropic'));
  const res = await api.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model: PRIMARY, models: [FALLBACK], max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(res.status).toBe(200);
  expect(res.body.model).toBe(FALLBACK);
  expect(anthropicCalls).toBe(0);
});

test('POST /api/v2/generate: `fallbacks` runs the next model when the first cannot serve; billed at its price', async () => {
  const account = await api.account('vip', { planTokens: 100_000 });
  const token = await api.apiKey(account);
  const body = { model: 'flux-dev', fallbacks: ['gpt-image-2.6-flare'], prompt: 'a lighthouse at dusk', size: '1024x1024' };
  const res = await api.request('POST', '/api/v2/generate', { token, body });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'completed', model_slug: 'gpt-image-2.6-flare' });
  expect(bflCalls).toBeGreaterThan(0);
  const served = findModel('gpt-image-2.6-flare')!;
  const price = quoteGeneration(served, normalizeGenerateParams(served, { model: served.slug, prompt: body.prompt, size: body.size }));
  const primary = findModel('flux-dev')!;
  // The hold covered the dearer of the two: the charge is the served model's own price.
  expect(
    quoteGeneration(primary, normalizeGenerateParams(primary, { model: primary.slug, prompt: body.prompt, size: body.size })),
  ).not.toBe(price);
  expect(res.body.tokens_spent).toBe(price);
  const rows: { kind: string; delta: number }[] = await api.db.dataSource.query(
    `SELECT kind, (plan_delta + bonus_delta)::int AS delta FROM ledger_entries WHERE user_id = $1 AND reference = $2 ORDER BY id`,
    [account.user.id, `gen:${res.body.id}`],
  );
  expect(rows.map((r) => r.kind)).toEqual(['reserve', 'settle']);

  // The first model serves when it can; a fallback must take the same options, and be open to the key.
  bflDown = false;
  const first = await api.request('POST', '/api/v2/generate', { token, body });
  expect(first.body).toMatchObject({ status: 'completed', model_slug: 'flux-dev' });
  const refused = await api.request('POST', '/api/v2/generate', { token, body: { ...body, fallbacks: ['no-such-model'] } });
  expect(refused.status).toBe(404);
});
