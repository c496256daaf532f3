import OpenAI from 'openai';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { GenerationEntity } from '../../src/db/entities';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { SandboxHandler } from '../../src/sandbox/types';
import { ApiHarness, avoidWindowEdge, startApi } from '../api/harness';
import { eventually } from '../support/wait';
import { CATALOG_SHAPE } from '../fixtures/catalog-shape';

let api: ApiHarness;
/** Upstream responses the fake saw closed by its client before it finished them. */
let upstreamAborts = 0;

beforeAll(async () => {
  // A slow upstream (60 ms between chunks) makes streaming observable.
  const slow = createOpenAiSandbox({ chunkDelayMs: 60 });
  const watched: SandboxHandler = (req, res) => {
    res.on('close', () => {
      if (!res.writableFinished) upstreamAborts += 1;
    });
    return slow(req, res);
  };
  api = await startApi({}, { handlers: { openai: watched } });
});
afterAll(() => api.close());

function client(apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
}

async function vipKey(tokens = 200): Promise<{ key: string; userId: number }> {
  const acc = await api.account('vip', { planTokens: tokens, bonusTokens: 0 });
  return { key: await api.apiKey(acc), userId: acc.user.id };
}

async function expectBooksBalanced(userId: number) {
  const b = await getBalance(api.db.dataSource, userId);
  expect(await ledgerTotals(api.db.dataSource, userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

test('chat.completions.create: the standard answer, usage with OpenAI fields and details, the service object, headers', async () => {
  const { key, userId } = await vipKey(200);
  const { data, response } = await client(key)
    .chat.completions.create({
      model: 'claude-haiku-4-5',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello to the world' },
      ],
      max_tokens: 200,
      temperature: 0.3,
    })
    .withResponse();
  expect(data.object).toBe('chat.completion');
  expect(data.model).toBe('claude-haiku-4-5');
  expect(data.choices[0].message.role).toBe('assistant');
  expect(data.choices[0].message.content?.length).toBeGreaterThan(0);
  expect(data.choices[0].finish_reason).toBe('stop');
  expect(Object.keys(data.usage!).sort()).toEqual([
    'completion_tokens',
    'completion_tokens_details',
    'prompt_tokens',
    'prompt_tokens_details',
    'total_tokens',
  ]);
  expect(data.usage!.prompt_tokens_details).toEqual({ cached_tokens: 0 });
  expect(data.usage!.completion_tokens_details).toEqual({ reasoning_tokens: 0 });
  expect(data.usage!.total_tokens).toBe(data.usage!.prompt_tokens + data.usage!.completion_tokens);
  const service = (data as unknown as { service: { tokens_spent: number; balance: number } }).service;
  expect(service.tokens_spent).toBeGreaterThanOrEqual(1);
  expect(service.balance).toBe(200 - service.tokens_spent);
  expect(response.headers.get('x-token-balance')).toBe(String(service.balance));
  expect(response.headers.get('x-ratelimit-limit')).toBe('100');
  expect((await getBalance(api.db.dataSource, userId)).total).toBe(service.balance);
  await expectBooksBalanced(userId);
});

test('streaming: chunks arrive as produced, the final chunk carries the service object, no X-Token-Balance', async () => {
  const { key, userId } = await vipKey(200);
  const { data: stream, response } = await client(key)
    .chat.completions.create({
      model: 'gpt-6-luna',
      messages: [{ role: 'user', content: 'Tell me a long story about seven foxes in a forest at night' }],
      stream: true,
    })
    .withResponse();
  expect(response.headers.get('x-token-balance')).toBeNull();
  const arrivals: number[] = [];
  let text = '';
  let last: Record<string, unknown> | undefined;
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta?.content;
    if (delta) {
      text += delta;
      arrivals.push(Date.now());
    }
    last = chunk as unknown as Record<string, unknown>;
  }
  expect(text.length).toBeGreaterThan(0);
  expect(arrivals.length).toBeGreaterThan(2);
  // The first delta was forwarded well before the upstream produced the last one.
  expect(arrivals[arrivals.length - 1] - arrivals[0]).toBeGreaterThanOrEqual(200);
  const service = last!.service as { tokens_spent: number; balance: number };
  expect(service.tokens_spent).toBeGreaterThanOrEqual(1);
  expect(service.balance).toBe(200 - service.tokens_spent);
  await expectBooksBalanced(userId);
});

test('errors come in the compatible shape and as the SDK typed errors', async () => {
  await expect(
    client('nb_' + 'x'.repeat(45)).chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hi' }] }),
  ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);

  const basic = await api.account('basic', { planTokens: 100 });
  const basicKey = await api.apiKey(basic);
  const denied = await client(basicKey)
    .chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hi' }] })
    .catch((e) => e);
  expect(denied).toBeInstanceOf(OpenAI.PermissionDeniedError);
  expect(denied.message).toMatch(/VIP/);
  expect(denied.error).toMatchObject({ type: expect.any(String), code: 'insufficient_plan' });

  const { key } = await vipKey(200);
  await expect(
    client(key).chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }),
  ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  const bad = await client(key)
    .chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'assistant', content: 'hi' }] })
    .catch((e) => e);
  expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
  expect(bad.message).toMatch(/final message/);

  const broke = await vipKey(0);
  const poor = await client(broke.key)
    .chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hi' }] })
    .catch((e) => e);
  expect(poor).toBeInstanceOf(OpenAI.APIError);
  expect(poor.status).toBe(402);

  const overloaded = await client(key)
    .chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hi [[fail:overloaded]]' }] })
    .catch((e) => e);
  expect(overloaded).toBeInstanceOf(OpenAI.InternalServerError);
  expect(overloaded.status).toBe(503);
  expect(overloaded.message).toMatch(/switch to another model|try again/i);
});

test('429 in the compatible shape once the hourly limit is reached', async () => {
  await avoidWindowEdge(3600, 10);
  const acc = await api.account('vip', { planTokens: 500 });
  const key = await api.apiKey(acc);
  await api.db.dataSource.query(`UPDATE plans SET rate_limit_hourly = 2 WHERE slug = 'vip'`);
  api.services.plans.invalidate();
  try {
    const c = client(key);
    const r1 = await c.chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'a' }] }).catch((e) => e);
    const r2 = await c.chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'b' }] }).catch((e) => e);
    const r3 = await c.chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'c' }] }).catch((e) => e);
    const limited = [r1, r2, r3].filter((r) => r instanceof OpenAI.RateLimitError);
    expect(limited.length).toBeGreaterThanOrEqual(1);
  } finally {
    await api.db.dataSource.query(`UPDATE plans SET rate_limit_hourly = 100 WHERE slug = 'vip'`);
    api.services.plans.invalidate();
  }
});

test('an upstream failure mid-stream raises in the client and charges nothing', async () => {
  const { key, userId } = await vipKey(100);
  const stream = await client(key).chat.completions.create({
    model: 'gpt-6-luna',
    messages: [{ role: 'user', content: 'a long answer please [[fail:midstream]]' }],
    stream: true,
  });
  await expect(
    (async () => {
      for await (const _chunk of stream) void _chunk;
    })(),
  ).rejects.toBeDefined();
  // The failed stream is settled (released) once its generation row leaves `pending`.
  const g = await eventually(async () => {
    const row = await api.db.dataSource.getRepository(GenerationEntity).findOneBy({ userId });
    return row && row.status !== 'pending' ? row : undefined;
  });
  expect((await getBalance(api.db.dataSource, userId)).total).toBe(100);
  expect(g.status).toBe('failed');
  await expectBooksBalanced(userId);
});

test('a client that disconnects mid-stream aborts the upstream and is charged for what was delivered, never more than reserved', async () => {
  const { key, userId } = await vipKey(100);
  const abortsBefore = upstreamAborts;
  const controller = new AbortController();
  const stream = await client(key).chat.completions.create(
    {
      model: 'gpt-6-luna',
      messages: [{ role: 'user', content: 'Tell me a very long story about the sea and the wind and the stars' }],
      stream: true,
    },
    { signal: controller.signal },
  );
  let deltas = 0;
  try {
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta?.content) deltas += 1;
      if (deltas === 2) controller.abort();
    }
  } catch {
    // the SDK may end the iteration with an abort error or quietly
  }
  expect(deltas).toBe(2);
  const repo = api.db.dataSource.getRepository(GenerationEntity);
  const g = await eventually(async () => {
    const row = await repo.findOneByOrFail({ userId });
    return row.status !== 'pending' ? row : undefined;
  });
  expect(g.status).toBe('completed');
  expect(upstreamAborts).toBe(abortsBefore + 1);
  expect(g.tokensSpent).toBeGreaterThanOrEqual(1);
  expect(g.tokensSpent).toBeLessThanOrEqual(g.tokensReserved);
  // Only part of the answer was delivered and billed.
  expect((g.resultText ?? '').length).toBeLessThan(200);
  expect((await getBalance(api.db.dataSource, userId)).total).toBe(100 - g.tokensSpent);
  await expectBooksBalanced(userId);
});

test('GET /v1/models lists the catalog in the compatible format, without prices', async () => {
  const { key } = await vipKey();
  const list = await client(key).models.list();
  const ids = list.data.map((m) => m.id);
  expect(ids).toHaveLength(CATALOG_SHAPE.models);
  expect(ids).toContain('gpt-6-luna');
  for (const m of list.data) {
    expect(m.object).toBe('model');
    expect(Object.keys(m).some((k) => /cost|price/.test(k))).toBe(false);
  }
});

test('a web access token works on /v1 for a Starter account, within its model tier', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const ok = await client(token).chat.completions.create({ model: 'deepseek-v4-flash', messages: [{ role: 'user', content: 'hi' }] });
  expect(ok.choices[0].message.content).toBeTruthy();
  await expect(
    client(token).chat.completions.create({ model: 'gpt-6.1-sol', messages: [{ role: 'user', content: 'hi' }] }),
  ).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
});
