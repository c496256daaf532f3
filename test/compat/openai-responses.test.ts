import OpenAI from 'openai';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import type { ProviderName } from '../../src/core/providers/types';
import { GenerationEntity } from '../../src/db/entities';
import { hostFile } from '../../src/sandbox/chat-completions-fake';
import { ApiHarness, startApi } from '../api/harness';
import { pngDataUri, textModel } from './models';

// The official `openai` SDK's Responses client drives POST /v1/responses unchanged, on models of several
// vendors: the same accounts, keys, limits, hold and ledger as /v1/chat/completions.

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

async function client(tokens = 500): Promise<{ openai: OpenAI; userId: number; key: string }> {
  const acc = await api.account('vip', { planTokens: tokens, bonusTokens: 0 });
  const key = await api.apiKey(acc);
  return { openai: new OpenAI({ apiKey: key, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 }), userId: acc.user.id, key };
}

async function expectChargedOnce(userId: number, before: number) {
  const generations = await api.db.dataSource.getRepository(GenerationEntity).findBy({ userId });
  expect(generations.map((g) => g.status)).toEqual(['completed']);
  const spent = generations[0].tokensSpent;
  expect(spent).toBeGreaterThan(0);
  const b = await getBalance(api.db.dataSource, userId);
  expect(b.total).toBe(before - spent);
  expect(await ledgerTotals(api.db.dataSource, userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
  return spent;
}

const weatherTool: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

type Service = { service: { tokens_spent: number; balance: number } };

describe.each(['openai', 'anthropic'] as ProviderName[])('responses on a %s model', (provider) => {
  const model = textModel(provider).slug;

  test('responses.create with a string input: output_text, usage, X-Token-Balance; charged once', async () => {
    const { openai, userId } = await client(500);
    const { data, response } = await openai.responses
      .create({ model, instructions: 'Be brief.', input: 'Hello from the Responses SDK' })
      .withResponse();
    expect(data).toMatchObject({ object: 'response', status: 'completed', model, error: null, store: true });
    expect(data.id).toMatch(/^resp_/);
    expect(data.output).toEqual([
      {
        type: 'message',
        id: expect.stringMatching(/^msg_/),
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: expect.stringMatching(/Hello from the Responses SDK/), annotations: [], logprobs: [] }],
      },
    ]);
    expect(data.output_text).toMatch(/Hello from the Responses SDK/);
    expect(data.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(data.usage!.total_tokens).toBe(data.usage!.input_tokens + data.usage!.output_tokens);
    const spent = await expectChargedOnce(userId, 500);
    expect((data as unknown as Service).service.tokens_spent).toBe(spent);
    expect(Number(response.headers.get('x-token-balance'))).toBe(500 - spent);
  });

  test('responses.stream: the documented events in order, sequence numbers, response.completed with usage; charged once', async () => {
    const { openai, userId } = await client(500);
    const stream = openai.responses.stream({ model, input: [{ role: 'user', content: 'Stream to me please' }] });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const ev of stream) events.push(ev);
    const final = await stream.finalResponse();
    const types = events.map((e) => e.type);
    const deltas = types.filter((t) => t === 'response.output_text.delta').length;
    expect(deltas).toBeGreaterThanOrEqual(1);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array<string>(deltas).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_e, i) => i));
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.response.usage!.output_tokens).toBeGreaterThan(0);
    expect(final.output_text).toMatch(/Stream to me please/);
    expect(final.status).toBe('completed');
    await expectChargedOnce(userId, 500);
  });

  test('a tool round trip: function_call, then the answer from function_call_output (created, then streamed)', async () => {
    const { openai } = await client(500);
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const first = await openai.responses.create({ model, input, tools: [weatherTool] });
    const call = first.output.find((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call')!;
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', call_id: expect.any(String), status: 'completed' });
    expect(JSON.parse(call.arguments)).toEqual({ city: expect.any(String) });

    const answer = openai.responses.stream({
      model,
      tools: [weatherTool],
      input: [
        ...input,
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: '{"temp_c": 21}' },
      ],
    });
    const done = await answer.finalResponse();
    expect(done.output.map((o) => o.type)).toEqual(['message']);
    expect(done.output_text).toMatch(/get_weather.*temp_c/);
  });

  test('a streamed function call: arguments deltas, then .done with the whole arguments', async () => {
    const { openai } = await client(500);
    const stream = openai.responses.stream({
      model,
      tools: [weatherTool],
      tool_choice: { type: 'function', name: 'get_weather' },
      input: 'Weather in Oslo',
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const ev of stream) events.push(ev);
    const deltas = events.filter((e) => e.type === 'response.function_call_arguments.delta');
    const done = events.find((e) => e.type === 'response.function_call_arguments.done')!;
    expect(deltas.length).toBeGreaterThanOrEqual(1);
    expect(deltas.map((d) => d.delta).join('')).toBe(done.arguments);
    expect(JSON.parse(done.arguments)).toEqual({ city: expect.any(String) });
    const final = await stream.finalResponse();
    expect(final.output.find((o) => o.type === 'function_call')).toMatchObject({ name: 'get_weather', status: 'completed' });
    expect(events.at(-1)!.type).toBe('response.completed');
  });
});

test('an input_image (data: URI) goes to a vision model of each vendor', async () => {
  const { openai } = await client(500);
  const image = await pngDataUri();
  for (const provider of ['openai', 'anthropic', 'google'] as ProviderName[]) {
    const model = textModel(provider, { vision: true }).slug;
    const res = await openai.responses.create({
      model,
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is in this picture?' },
            { type: 'input_image', image_url: image, detail: 'auto' },
          ],
        },
      ],
    });
    expect([model, res.output_text]).toEqual([model, expect.stringMatching(/1 image/)]);
  }
});

test('text.format json_schema comes back as JSON matching the schema', async () => {
  const { openai } = await client(500);
  const res = await openai.responses.create({
    model: textModel('openai').slug,
    input: 'Give me a city',
    text: {
      format: {
        type: 'json_schema',
        name: 'city',
        strict: true,
        schema: {
          type: 'object',
          properties: { name: { type: 'string' }, population: { type: 'integer' } },
          required: ['name', 'population'],
          additionalProperties: false,
        },
      },
    },
  });
  expect(JSON.parse(res.output_text)).toEqual({ name: expect.any(String), population: expect.any(Number) });
});

test('max_output_tokens reached: status incomplete, reason max_output_tokens', async () => {
  const { openai } = await client(500);
  const res = await openai.responses.create({ model: textModel('openai').slug, input: 'Count to a hundred', max_output_tokens: 16 });
  expect(res.status).toBe('incomplete');
  expect(res.incomplete_details).toEqual({ reason: 'max_output_tokens' });
});

test('what needs state this server does not keep answers 400 naming it; errors in the OpenAI shape', async () => {
  const { openai } = await client(500);
  const model = textModel('openai').slug;
  for (const [params, param] of [
    [{ previous_response_id: 'resp_123' }, 'previous_response_id'],
    [{ conversation: 'conv_123' }, 'conversation'],
    [{ prompt: { id: 'pmpt_123' } }, 'prompt'],
    [{ frequency_penalty: 1 }, 'frequency_penalty'],
  ] as [Record<string, unknown>, string][]) {
    const err = await openai.responses
      .create({ model, input: 'hi', ...params } as OpenAI.Responses.ResponseCreateParamsNonStreaming)
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(err.message).toContain(param);
  }
  const stored = await openai.responses.create({ model, input: 'hi', store: false, metadata: { run: '1' }, user: 'u-1' });
  expect(stored.status).toBe('completed');

  const unknownTool = await openai.responses.create({ model, input: 'hi', tools: [{ type: 'hologram' } as never] }).catch((e) => e);
  expect(unknownTool).toBeInstanceOf(OpenAI.BadRequestError);
  expect(unknownTool.message).toMatch(/tools\.0\.type.*"hologram"/);

  const missing = await openai.responses.create({ model: 'no-such-model', input: 'hi' }).catch((e) => e);
  expect(missing).toBeInstanceOf(OpenAI.NotFoundError);

  const { openai: broke } = await client(0);
  const poor = await broke.responses.create({ model, input: 'hi' }).catch((e) => e);
  expect(poor.status).toBe(402);
  expect(poor.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_tokens' });
});

test('a vendor failure mid-stream is response.failed; nothing is charged', async () => {
  const { openai, userId } = await client(100);
  const stream = await openai.responses.create({
    model: textModel('openai').slug,
    input: 'a long answer please [[fail:midstream]]',
    stream: true,
  });
  const types: string[] = [];
  for await (const ev of stream) types.push(ev.type);
  expect(types[0]).toBe('response.created');
  expect(types.at(-1)).toBe('response.failed');
  expect((await getBalance(api.db.dataSource, userId)).total).toBe(100);
});

test('an input_image URL is fetched through the SSRF policy; a private address is refused naming the part', async () => {
  const { openai } = await client(500);
  const png = Buffer.from((await pngDataUri()).split(',')[1], 'base64');
  const url = `${api.sandbox.mountUrl('openai')}/v1/sandbox-files/${hostFile(png, 'image/png')}`;
  const model = textModel('google', { vision: true }).slug;
  const input = (u: string): OpenAI.Responses.ResponseInput => [
    { role: 'user', content: 'Look at this' },
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'Describe' },
        { type: 'input_image', image_url: u, detail: 'auto' },
      ],
    },
  ];
  const res = await openai.responses.create({ model, instructions: 'x', input: input(url) });
  expect(res.output_text).toMatch(/1 image/);
  const refused = await openai.responses.create({ model, input: input('http://169.254.169.254/x.png') }).catch((e) => e);
  expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
  expect(refused.error.param).toBe('input.1.content.1.image_url');
});

test('a refused request is named as the Responses API calls it', async () => {
  const { openai } = await client(500);
  const err = await openai.responses
    .create({ model: textModel('openai').slug, input: [{ role: 'assistant', content: 'I said this last' }] })
    .catch((e) => e);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  expect(err.error.param).toBe('input');
});
