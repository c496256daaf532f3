import OpenAI from 'openai';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import type { ProviderName } from '../../src/core/providers/types';
import { hostFile } from '../../src/sandbox/chat-completions-fake';
import { ApiHarness, startApi } from '../api/harness';
import { pngDataUri, textModel, weatherTool } from './models';

// The official `openai` SDK drives /v1 unchanged against models of every vendor (sandbox upstreams).

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

async function client(tokens = 500): Promise<{ openai: OpenAI; userId: number }> {
  const acc = await api.account('vip', { planTokens: tokens, bonusTokens: 0 });
  const openai = new OpenAI({ apiKey: await api.apiKey(acc), baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
  return { openai, userId: acc.user.id };
}

async function expectBooksBalanced(userId: number) {
  const b = await getBalance(api.db.dataSource, userId);
  expect(await ledgerTotals(api.db.dataSource, userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

type Service = { tokens_spent: number; balance: number };

const TOOL_PROVIDERS: ProviderName[] = ['openai', 'anthropic', 'google', 'xai', 'deepseek'];

describe.each(TOOL_PROVIDERS)('tools on a %s model', (provider) => {
  const model = textModel(provider).slug;

  test('sync: a tool call, then the answer using its result', async () => {
    const { openai, userId } = await client();
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'What is the weather in Paris?' };
    const first = await openai.chat.completions.create({ model, messages: [question], tools: [weatherTool] });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const calls = first.choices[0].message.tool_calls!;
    expect(calls).toHaveLength(1);
    const call = calls[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.type).toBe('function');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: expect.any(String) });
    // The tool arguments are completion tokens, and they are charged.
    expect(first.usage!.completion_tokens).toBeGreaterThan(0);
    expect((first as unknown as { service: Service }).service.tokens_spent).toBeGreaterThanOrEqual(1);

    const second = await openai.chat.completions.create({
      model,
      tools: [weatherTool],
      messages: [question, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"temp_c": 21, "sky": "clear"}' }],
    });
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(second.choices[0].message.tool_calls ?? []).toEqual([]);
    expect(second.choices[0].message.content).toMatch(/get_weather/);
    expect(second.choices[0].message.content).toMatch(/temp_c/);
    await expectBooksBalanced(userId);
  });

  test('streamed: tool-call deltas with index, id, name and argument fragments, finish_reason tool_calls', async () => {
    const { openai, userId } = await client();
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'Weather in Oslo please' };
    const stream = await openai.chat.completions.create({
      model,
      messages: [question],
      tools: [weatherTool],
      stream: true,
      stream_options: { include_usage: true },
    });
    const calls: { id?: string; name?: string; args: string }[] = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      for (const d of chunk.choices[0]?.delta?.tool_calls ?? []) {
        calls[d.index] ??= { args: '' };
        if (d.id) calls[d.index].id = d.id;
        if (d.function?.name) calls[d.index].name = d.function.name;
        calls[d.index].args += d.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(finish).toBe('tool_calls');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toEqual({ id: expect.any(String), name: 'get_weather', args: expect.any(String) });
    expect(JSON.parse(calls[0].args)).toEqual({ city: expect.any(String) });
    expect(usage!.completion_tokens).toBeGreaterThan(0);

    // The SDK's stream helper assembles the same call; the round trip finishes with text.
    const assistant: OpenAI.ChatCompletionAssistantMessageParam = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: calls[0].id!, type: 'function', function: { name: calls[0].name!, arguments: calls[0].args } }],
    };
    const answer = openai.chat.completions.stream({
      model,
      tools: [weatherTool],
      messages: [question, assistant, { role: 'tool', tool_call_id: calls[0].id!, content: 'rainy, 9 C' }],
    });
    const done = await answer.finalChatCompletion();
    expect(done.choices[0].finish_reason).toBe('stop');
    expect(done.choices[0].message.content).toMatch(/rainy/);
    await expectBooksBalanced(userId);
  });
});

test('tool_choice: none answers in text, a named function is called, required without tools is a 400', async () => {
  const { openai } = await client();
  const model = textModel('anthropic').slug;
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Rome?' }];
  const none = await openai.chat.completions.create({ model, messages, tools: [weatherTool], tool_choice: 'none' });
  expect(none.choices[0].finish_reason).toBe('stop');
  expect(none.choices[0].message.content).toMatch(/Sandbox reply/);
  const timeTool = {
    type: 'function' as const,
    function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string', enum: ['CET', 'UTC'] } } } },
  };
  const named = await openai.chat.completions.create({
    model: textModel('google').slug,
    messages,
    tools: [weatherTool, timeTool],
    tool_choice: { type: 'function', function: { name: 'get_time' } },
  });
  const call = named.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
  expect(call.function.name).toBe('get_time');
  expect(JSON.parse(call.function.arguments)).toEqual({ zone: 'CET' });
  const bad = await openai.chat.completions.create({ model, messages, tool_choice: 'required' }).catch((e) => e);
  expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
  expect(bad.error).toMatchObject({ param: 'tool_choice', type: 'invalid_request_error' });
});

test('the developer role is a system message', async () => {
  const { openai } = await client();
  const res = await openai.chat.completions.create({
    model: 'gpt-5.6-terra',
    messages: [
      { role: 'developer', content: 'Answer briefly.' },
      { role: 'user', content: 'Hello there' },
    ],
  });
  expect(res.choices[0].message.content).toMatch(/Hello there/);
});

test('vision: a data: image goes to a vision model of each vendor', async () => {
  const { openai } = await client();
  const image = await pngDataUri();
  for (const provider of ['openai', 'anthropic', 'google'] as ProviderName[]) {
    const model = textModel(provider, { vision: true }).slug;
    const res = await openai.chat.completions.create({
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: image } },
          ],
        },
      ],
    });
    expect([model, res.choices[0].message.content]).toEqual([model, expect.stringMatching(/1 image/)]);
  }
});

test('vision on a model without it is a 400 naming the model', async () => {
  const { openai } = await client();
  const model = textModel('deepseek', { vision: false }).slug;
  const err = await openai.chat.completions
    .create({
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image_url', image_url: { url: await pngDataUri() } },
          ],
        },
      ],
    })
    .catch((e) => e);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  expect(err.message).toContain(model);
  expect(err.error).toMatchObject({ param: 'messages', type: 'invalid_request_error' });
});

test('response_format json_object and json_schema come back as JSON', async () => {
  const { openai } = await client();
  for (const model of [textModel('openai').slug, textModel('google').slug]) {
    const obj = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Reply in JSON please' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(obj.choices[0].message.content!)).toEqual(expect.any(Object));
    const schema = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Give me a city' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
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
    expect(JSON.parse(schema.choices[0].message.content!)).toEqual({ name: expect.any(String), population: expect.any(Number) });
  }
});

test('what no vendor of the model can do is refused by name: n and logprobs on Claude, audio output', async () => {
  const { openai } = await client();
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'hi' }];
  const cases: [Record<string, unknown>, string][] = [
    [{ model: textModel('anthropic').slug, n: 2 }, 'n'],
    [{ model: textModel('anthropic').slug, logprobs: true }, 'logprobs'],
    [{ model: textModel('openai').slug, top_logprobs: 2 }, 'top_logprobs'],
    [{ model: textModel('openai').slug, modalities: ['text', 'audio'] }, 'modalities'],
    [{ model: textModel('openai').slug, audio: { voice: 'alloy', format: 'mp3' } }, 'audio'],
  ];
  for (const [params, param] of cases) {
    const err = await openai.chat.completions
      .create({ messages, ...params } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .catch((e) => e);
    expect([params, err.status, err.error?.param]).toEqual([params, 400, param]);
    expect(err.message).toContain(param);
  }
});

test('honoured parameters pass: stop, top_p, seed, penalties, user, max_completion_tokens', async () => {
  const { openai } = await client();
  // Every OpenAI model in the catalog reasons now (no stop, top_p or penalties); grok-4.20 honours them all.
  const res = await openai.chat.completions.create({
    model: 'grok-4.20',
    messages: [{ role: 'user', content: 'Count to ten' }],
    stop: ['END'],
    top_p: 0.9,
    seed: 42,
    presence_penalty: 0.1,
    frequency_penalty: 0.1,
    user: 'end-user-7',
    max_completion_tokens: 5,
  });
  expect(res.choices[0].finish_reason).toBe('length');
  expect(res.usage!.completion_tokens).toBeLessThanOrEqual(5);
});

test('vision: an http(s) image URL is fetched through the SSRF policy; a private address is refused', async () => {
  const png = Buffer.from((await pngDataUri()).split(',')[1], 'base64');
  const url = `${api.sandbox.mountUrl('openai')}/v1/sandbox-files/${hostFile(png, 'image/png')}`;
  const { openai } = await client();
  const model = textModel('anthropic', { vision: true }).slug;
  const res = await openai.chat.completions.create({
    model,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Describe' },
          { type: 'image_url', image_url: { url } },
        ],
      },
    ],
  });
  expect(res.choices[0].message.content).toMatch(/1 image/);
  const refused = await openai.chat.completions
    .create({
      model,
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://169.254.169.254/latest/meta-data/x.png' } }] }],
    })
    .catch((e) => e);
  expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
  expect(refused.error.param).toBe('messages.0.content.0.image_url');
});
