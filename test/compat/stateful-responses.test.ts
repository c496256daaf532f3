import OpenAI from 'openai';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { GenerationEntity } from '../../src/db/entities';
import { startWorkers } from '../../src/jobs/workers';
import { anthropicSandbox } from '../../src/sandbox/anthropic';
import { googleSandbox } from '../../src/sandbox/google';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import type { SandboxHandler } from '../../src/sandbox/types';
import { ApiHarness, startApi } from '../api/harness';
import { eventually, waitUntil } from '../support/wait';

// Issue 35, stateful Responses with the official `openai` SDK: store by default (answered true), retrieve, input items
// (OpenAI's list and cursor), delete, previous_response_id (the stored chain, reasoning included, reaches the vendor),
// item_reference, another account's 404, background runs (queued, in_progress, completed) polled with retrieve and
// cancelled (billed for what the vendor wrote), and the plan's retention.

const vendorBodies: { vendor: string; body: Record<string, unknown> }[] = [];
const watch =
  (vendor: string, handler: SandboxHandler): SandboxHandler =>
  (req, res) => {
    if (req.method === 'POST') vendorBodies.push({ vendor, body: JSON.parse(req.body.toString('utf8')) as Record<string, unknown> });
    return handler(req, res);
  };

let api: ApiHarness;
let workers: Promise<void> | undefined;
beforeAll(async () => {
  // A prompt with [[slow]] gets a slow stream (0.4 s a piece), so a cancel lands while the answer is being written.
  const fast = createOpenAiSandbox({ chunkDelayMs: 0 });
  const slow = createOpenAiSandbox({ chunkDelayMs: 400 });
  const openai: SandboxHandler = (req, res) => (req.body.toString('utf8').includes('[[slow]]') ? slow(req, res) : fast(req, res));
  api = await startApi(
    {},
    {
      handlers: {
        openai: watch('openai', openai),
        anthropic: watch('anthropic', anthropicSandbox),
        google: watch('google', googleSandbox),
      },
    },
  );
  await api.services.boss.start();
});
afterAll(() => api.close());
beforeEach(() => void (vendorBodies.length = 0));

const runJobs = () => (workers ??= startWorkers(api.services.boss, api.services));

async function client(tokens = 20_000) {
  const account = await api.account('vip', { planTokens: tokens, bonusTokens: 0 });
  const key = await api.apiKey(account);
  return { openai: new OpenAI({ apiKey: key, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 }), userId: account.user.id, key };
}

async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

const weather: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

test('stored by default: answered store true, retrieved, its input items listed and paged, deleted; another account gets 404', async () => {
  const { openai } = await client();
  const created = await openai.responses.create({
    model: 'claude-haiku-4-5',
    input: [
      { role: 'user', content: 'one' },
      { role: 'user', content: 'two' },
      { role: 'user', content: 'three' },
    ],
  });
  expect(created).toMatchObject({ status: 'completed', store: true, background: false });
  expect(await openai.responses.retrieve(created.id)).toEqual(created);

  const desc = await openai.responses.inputItems.list(created.id);
  expect(desc.data.map((i) => ((i as OpenAI.Responses.ResponseInputMessageItem).content[0] as { text: string }).text)).toEqual([
    'three',
    'two',
    'one',
  ]);
  expect(desc.data.every((i) => typeof i.id === 'string' && i.id.startsWith('msg_'))).toBe(true);
  const page = await openai.responses.inputItems.list(created.id, { order: 'asc', limit: 2 });
  expect([page.data.length, page.has_more]).toEqual([2, true]);
  const rest = await openai.responses.inputItems.list(created.id, { order: 'asc', limit: 2, after: page.data[1].id });
  expect([rest.data.map((i) => i.id), rest.has_more]).toEqual([[desc.data[0].id], false]);
  let all = 0;
  for await (const _item of openai.responses.inputItems.list(created.id, { limit: 1 })) all += 1;
  expect(all).toBe(3);

  const other = await client();
  expect(await refusal(other.openai.responses.retrieve(created.id))).toBeInstanceOf(OpenAI.NotFoundError);
  expect(await refusal(other.openai.responses.inputItems.list(created.id))).toBeInstanceOf(OpenAI.NotFoundError);
  expect(await refusal(other.openai.responses.delete(created.id))).toBeInstanceOf(OpenAI.NotFoundError);
  const foreign = await refusal(other.openai.responses.create({ model: 'claude-haiku-4-5', previous_response_id: created.id, input: 'x' }));
  expect([foreign.status, (foreign.error as { param?: string }).param]).toEqual([400, 'previous_response_id']);

  expect(await openai.responses.delete(created.id)).toEqual({ id: created.id, object: 'response', deleted: true });
  const gone = await refusal(openai.responses.retrieve(created.id));
  expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
  expect(gone.error).toMatchObject({ message: `Response with id '${created.id}' not found.` });
});

test('store: false keeps nothing; it is answered false', async () => {
  const { openai } = await client();
  const res = await openai.responses.create({ model: 'claude-haiku-4-5', input: 'forget me', store: false });
  expect((res as unknown as { store: boolean }).store).toBe(false);
  expect(await refusal(openai.responses.retrieve(res.id))).toBeInstanceOf(OpenAI.NotFoundError);
  const next = await refusal(openai.responses.create({ model: 'claude-haiku-4-5', previous_response_id: res.id, input: 'x' }));
  expect(next.status).toBe(400);
});

describe.each(['claude-haiku-4-5', 'gpt-6.1-terra', 'gemini-3.5-flash'])('previous_response_id on %s', (model) => {
  test('a tool loop continues from the stored response: the vendor gets the whole conversation', async () => {
    const { openai } = await client();
    const first = await openai.responses.create({ model, input: 'What is the weather in Paris?', tools: [weather] });
    const call = first.output.find((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call')!;
    expect(call.name).toBe('get_weather');
    const second = await openai.responses.create({
      model,
      previous_response_id: first.id,
      tools: [weather],
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temp_c": 21}' }],
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text).toMatch(/get_weather.*temp_c/);
    const context = await openai.responses.inputItems.list(second.id, { order: 'asc' });
    expect(context.data.map((i) => i.type)).toEqual(expect.arrayContaining(['message', 'function_call', 'function_call_output']));
    expect(JSON.stringify(vendorBodies.at(-1)!.body)).toContain('What is the weather in Paris?');
  });
});

test("a reasoning model's state continues: the stored encrypted reasoning is replayed to OpenAI", async () => {
  const { openai } = await client();
  const first = await openai.responses.create({ model: 'gpt-6.1-terra', input: 'Weather in Oslo?', tools: [weather] });
  const reasoning = first.output.find((o) => o.type === 'reasoning') as OpenAI.Responses.ResponseReasoningItem;
  // Not asked for: the client sees no encrypted content, though the service keeps it.
  expect(reasoning.encrypted_content).toBeUndefined();
  const call = first.output.find((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call')!;
  await openai.responses.create({
    model: 'gpt-6.1-terra',
    previous_response_id: first.id,
    tools: [weather],
    input: [{ type: 'function_call_output', call_id: call.call_id, output: '12 degrees' }],
  });
  const replayed = (vendorBodies.at(-1)!.body.input as { type?: string; encrypted_content?: string }[]).filter(
    (i) => i.type === 'reasoning',
  );
  expect(replayed).toEqual([expect.objectContaining({ encrypted_content: expect.any(String) })]);
  const shown = await openai.responses.retrieve(first.id, { include: ['reasoning.encrypted_content'] });
  expect((shown.output.find((o) => o.type === 'reasoning') as OpenAI.Responses.ResponseReasoningItem).encrypted_content).toEqual(
    expect.any(String),
  );
});

test('an item_reference is the stored item it names; a duplicate of the chain is refused', async () => {
  const { openai } = await client();
  const first = await openai.responses.create({ model: 'claude-haiku-4-5', input: 'Remember the code word: otter' });
  const referenced = await openai.responses.create({
    model: 'claude-haiku-4-5',
    input: [
      { type: 'item_reference', id: first.output[0].id! },
      { role: 'user', content: 'What was it?' },
    ],
  });
  expect(referenced.status).toBe('completed');
  const items = await openai.responses.inputItems.list(referenced.id, { order: 'asc' });
  expect(items.data[0]).toMatchObject({ id: first.output[0].id, type: 'message', role: 'assistant' });
  const dup = await refusal(
    openai.responses.create({
      model: 'claude-haiku-4-5',
      previous_response_id: first.id,
      input: [{ type: 'item_reference', id: first.output[0].id! }],
    }),
  );
  expect(dup.message).toMatch(/Duplicate item/);
});

describe('background', () => {
  test('queued, then completed: polled with retrieve, charged once as the key that asked', async () => {
    const { openai, userId } = await client(5000);
    await runJobs();
    const queued = await openai.responses.create({ model: 'claude-haiku-4-5', input: 'Take your time', background: true });
    expect(queued).toMatchObject({ status: 'queued', background: true, store: true, output: [] });
    const done = await eventually(async () => {
      const r = await openai.responses.retrieve(queued.id);
      return r.status === 'completed' ? r : undefined;
    });
    expect(done.output_text).toMatch(/Take your time/);
    expect(done.usage!.output_tokens).toBeGreaterThan(0);
    const generations = await api.db.dataSource.getRepository(GenerationEntity).findBy({ userId });
    expect(generations.map((g) => g.status)).toEqual(['completed']);
    const b = await getBalance(api.db.dataSource, userId);
    expect(b.total).toBe(5000 - generations[0].tokensSpent);
    expect(await ledgerTotals(api.db.dataSource, userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
  });

  test('cancelled while it runs: it stops, and what the vendor wrote is billed', async () => {
    const { openai, userId } = await client(5000);
    await runJobs();
    const queued = await openai.responses.create({ model: 'gpt-6-luna', input: 'A long answer about otters [[slow]]', background: true });
    // The vendor has written part of the answer (the lease's progress, kept every two seconds).
    await waitUntil(async () => {
      const rows = await api.db.dataSource.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM generation_leases l JOIN generations g ON g.id = l.generation_id
          WHERE g.user_id = $1 AND l.delivered_chars > 0`,
        [userId],
      );
      return rows[0].n > 0;
    });
    const cancelled = await openai.responses.cancel(queued.id);
    expect(cancelled.status).toBe('cancelled');
    expect((await openai.responses.retrieve(queued.id)).status).toBe('cancelled');
    const generation = await eventually(async () => {
      const g = await api.db.dataSource.getRepository(GenerationEntity).findOneBy({ userId });
      return g && g.status !== 'pending' ? g : undefined;
    });
    // Billed on what the vendor wrote before the cancel: part of the answer, not all of it, not nothing.
    expect(generation.status).toBe('completed');
    expect((generation.resultMetadata as { completionTokens: number }).completionTokens).toBeGreaterThan(0);
    expect(generation.resultText!.length).toBeLessThan(
      'Sandbox reply from gpt-6-luna: you said "A long answer about otters [[slow]]".'.length,
    );
    const b = await getBalance(api.db.dataSource, userId);
    expect(b.total).toBe(5000 - generation.tokensSpent);
  });

  test('a queued one cancels at once; a foreground one cannot be cancelled; background needs store and is not streamed', async () => {
    const { openai } = await client();
    const foreground = await openai.responses.create({ model: 'claude-haiku-4-5', input: 'now' });
    const notBackground = await refusal(openai.responses.cancel(foreground.id));
    expect([notBackground.status, notBackground.code]).toEqual([400, 'response_not_cancellable']);
    const noStore = await refusal(openai.responses.create({ model: 'claude-haiku-4-5', input: 'x', background: true, store: false }));
    expect((noStore.error as { param?: string }).param).toBe('background');
    const streamed = await refusal(openai.responses.create({ model: 'claude-haiku-4-5', input: 'x', background: true, stream: true }));
    expect((streamed.error as { param?: string }).param).toBe('stream');
  });

  test('refused at once for what the run would refuse: an unknown model, a key that may not use it', async () => {
    const { openai, userId } = await client();
    expect(await refusal(openai.responses.create({ model: 'no-such-model', input: 'x', background: true }))).toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    const narrow = await api.services.apiKeys.create(userId, 'claude only', undefined, { models: ['claude-haiku-4-5'] });
    const limited = new OpenAI({ apiKey: narrow.key, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
    const refused = await refusal(limited.responses.create({ model: 'gpt-6-luna', input: 'x', background: true }));
    expect([refused.status, refused.code]).toEqual([403, 'model_not_allowed']);
    expect(await api.db.dataSource.query(`SELECT id FROM stored_responses WHERE user_id = $1 AND background`, [userId])).toEqual([]);
  });
});

test("kept for the plan's retention: expired responses are deleted by the maintenance job", async () => {
  const { openai, userId } = await client();
  const res = await openai.responses.create({ model: 'claude-haiku-4-5', input: 'short-lived' });
  const [row] = await api.db.dataSource.query<{ days: number | null }[]>(
    `SELECT EXTRACT(DAY FROM (expires_at - created_at))::int AS days FROM stored_responses WHERE id = $1`,
    [res.id],
  );
  const plan = await api.services.plans.get('vip');
  expect(row.days).toBe(plan.retentionDays);
  await api.db.dataSource.query(`UPDATE stored_responses SET expires_at = now() - interval '1 minute' WHERE user_id = $1`, [userId]);
  expect(await api.services.responses.purgeExpired()).toBe(1);
  expect(await refusal(openai.responses.retrieve(res.id))).toBeInstanceOf(OpenAI.NotFoundError);
});
