import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { HumanMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject } from 'ai';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { ApiHarness, startApi } from '../api/harness';
import { textModel } from './models';

// Issue 26, the rows that used to answer 400, with the clients that sent them: structured output on every vendor
// (openai .parse, LangChain withStructuredOutput's three methods, the AI SDK's generateObject), reasoning_effort,
// labels named in X-Ignored-Parameters, parallel_tool_calls, and PDF documents as file parts.

let api: ApiHarness;
let apiKey: string;
beforeAll(async () => {
  api = await startApi();
  apiKey = await api.apiKey(await api.account('vip', { planTokens: 5000 }));
});
afterAll(() => api.close());

const openai = () => new OpenAI({ apiKey, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
const langchain = (model: string) => new ChatOpenAI({ model, apiKey, configuration: { baseURL: `${api.baseUrl}/v1` }, maxRetries: 0 });
const aiSdk = () =>
  createOpenAICompatible({ name: 'nebula', baseURL: `${api.baseUrl}/v1`, apiKey, includeUsage: true, supportsStructuredOutputs: true });

const VENDORS = ['openai', 'anthropic', 'google'] as const;
const City = z.object({ name: z.string(), population: z.number().int() });
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

describe.each(VENDORS)('structured output on a %s model', (vendor) => {
  const model = textModel(vendor).slug;

  test('openai SDK chat.completions.parse with a zod schema', async () => {
    const res = await openai().chat.completions.parse({
      model,
      messages: [{ role: 'user', content: 'Paris has 2.1 million people' }],
      response_format: zodResponseFormat(City, 'city'),
    });
    expect(res.choices[0].message.parsed).toEqual({ name: expect.any(String), population: expect.any(Number) });
  });

  test.each(['jsonSchema', 'functionCalling'] as const)('LangChain withStructuredOutput, method %s', async (method) => {
    const out = await langchain(model)
      .withStructuredOutput(City, { method })
      .invoke([new HumanMessage('Paris has 2.1 million people')]);
    expect(City.parse(out)).toEqual({ name: expect.any(String), population: expect.any(Number) });
  });

  test('LangChain withStructuredOutput, method jsonMode', async () => {
    const Reply = z.object({ reply: z.string() });
    const out = await langchain(model)
      .withStructuredOutput(Reply, { method: 'jsonMode' })
      .invoke([new HumanMessage('Answer in JSON: hello')]);
    expect(Reply.parse(out).reply).toMatch(/hello/);
  });

  test('AI SDK generateObject', async () => {
    const { object } = await generateObject({ model: aiSdk()(model), schema: City, prompt: 'Paris has 2.1 million people' });
    expect(City.parse(object)).toEqual({ name: expect.any(String), population: expect.any(Number) });
  });

  test('streamed json_schema: the content adds up to JSON of the schema', async () => {
    const stream = await openai().chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'Paris has 2.1 million people' }],
      response_format: zodResponseFormat(City, 'city'),
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(City.parse(JSON.parse(text))).toEqual({ name: expect.any(String), population: expect.any(Number) });
  });
});

test('json_object on Claude (a forced tool): the content is the JSON object, sync and streamed', async () => {
  const model = textModel('anthropic').slug;
  const body = {
    model,
    messages: [{ role: 'user' as const, content: 'Answer in JSON: hi' }],
    response_format: { type: 'json_object' as const },
  };
  const res = await openai().chat.completions.create(body);
  expect(res.choices[0].finish_reason).toBe('stop');
  expect(res.choices[0].message.tool_calls ?? []).toEqual([]);
  expect(JSON.parse(res.choices[0].message.content!)).toEqual({ reply: expect.stringMatching(/hi/) });
  let text = '';
  for await (const chunk of await openai().chat.completions.create({ ...body, stream: true }))
    text += chunk.choices[0]?.delta.content ?? '';
  expect(JSON.parse(text)).toEqual({ reply: expect.stringMatching(/hi/) });
});

test('LangChain functionCalling on Gemini sends parallel_tool_calls: false; it is accepted and named as ignored', async () => {
  const res = await openai()
    .chat.completions.create({
      model: textModel('google').slug,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
      ],
      parallel_tool_calls: false,
    })
    .withResponse();
  expect(res.data.choices[0].finish_reason).toBe('tool_calls');
  expect(res.response.headers.get('x-ignored-parameters')).toBe('parallel_tool_calls');
});

test("LangChain withStructuredOutput functionCalling on Gemini, with parallel_tool_calls: false as LangChain's Python client sends it", async () => {
  // Recorded at the client: the request LangChain sent and the header it got back.
  const sent: Record<string, unknown>[] = [];
  const ignored: (string | null)[] = [];
  const recording: typeof fetch = async (input, init) => {
    sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
    const res = await fetch(input, init);
    ignored.push(res.headers.get('x-ignored-parameters'));
    return res;
  };
  for (const model of ['gemini-3.1-flash-lite', 'gemini-3.5-flash', 'gemini-3.1-pro']) {
    const chat = new ChatOpenAI({
      model,
      apiKey,
      maxRetries: 0,
      modelKwargs: { parallel_tool_calls: false },
      configuration: { baseURL: `${api.baseUrl}/v1`, fetch: recording },
    });
    const out = await chat
      .withStructuredOutput(City, { method: 'functionCalling' })
      .invoke([new HumanMessage('Paris has 2.1 million people')]);
    expect([model, City.parse(out)]).toEqual([model, { name: expect.any(String), population: expect.any(Number) }]);
  }
  expect(sent.map((b) => [b.parallel_tool_calls, (b.tool_choice as { type?: string }).type])).toEqual([
    [false, 'function'],
    [false, 'function'],
    [false, 'function'],
  ]);
  expect(ignored).toEqual(['parallel_tool_calls', 'parallel_tool_calls', 'parallel_tool_calls']);
});

describe('reasoning_effort', () => {
  const completion = async (model: string, extra: Record<string, unknown>) => {
    const { data, response } = await openai()
      .chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Why is the sky blue?' }],
        ...extra,
      } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .withResponse();
    return { tokens: data.usage!.completion_tokens, ignored: response.headers.get('x-ignored-parameters') };
  };

  test.each([
    ['gpt-6.1-sol', 'minimal', 'high'],
    ['gpt-5.6-terra', 'minimal', 'high'],
    ['gemini-3.5-flash', 'low', 'high'],
    ['gemini-3.1-pro', 'low', 'high'],
    ['deepseek-v4-pro', 'low', 'high'],
    ['deepseek-v4-flash', undefined, 'high'],
    ['claude-sonnet-4-6', undefined, 'low'],
    ['grok-3-mini', 'low', 'high'],
    ['grok-4.3', 'low', 'high'],
    ['grok-4.3', 'minimal', 'medium'],
  ])('%s: more effort, more reasoning tokens (%s < %s), nothing ignored', async (model, less, more) => {
    const low = await completion(model, less ? { reasoning_effort: less } : {});
    const high = await completion(model, { reasoning_effort: more });
    expect(high.tokens).toBeGreaterThan(low.tokens);
    expect([low.ignored, high.ignored]).toEqual([null, null]);
  });

  test('ignored, and named, where the model has no reasoning control or cannot apply it', async () => {
    expect((await completion('grok-4.20', { reasoning_effort: 'high' })).ignored).toBe('reasoning_effort');
    // gpt-6-luna calls functions on Chat Completions only with reasoning off: the tools win over the effort.
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }];
    expect((await completion('gpt-6-luna', { reasoning_effort: 'high', tools })).ignored).toBe('reasoning_effort');
    // Claude's extended thinking takes only the default temperature: the explicit temperature wins.
    expect((await completion('claude-sonnet-4-6', { reasoning_effort: 'high', temperature: 0.3 })).ignored).toBe('reasoning_effort');
  });

  test('an unknown effort is refused by name', async () => {
    const err = await completion('gpt-6.1-sol', { reasoning_effort: 'extreme' }).catch((e) => e);
    expect([err.status, err.error?.param]).toEqual([400, 'reasoning_effort']);
  });
});

describe('DeepSeek thinking mode', () => {
  test('the retired deepseek-reasoner thinks on its replacement, as DeepSeek maps it; deepseek-chat does not', async () => {
    const ask = (model: string) =>
      openai()
        .chat.completions.create({ model, messages: [{ role: 'user', content: 'Why is the sky blue?' }] })
        .withResponse();
    const reasoner = await ask('deepseek-reasoner');
    const chat = await ask('deepseek-chat');
    expect(reasoner.response.headers.get('x-model-replaced')).toMatch(/deepseek-reasoner/);
    expect(reasoner.data.usage!.completion_tokens).toBeGreaterThan(chat.data.usage!.completion_tokens);
    expect(reasoner.response.headers.get('x-ignored-parameters')).toBeNull();
  });

  test('a tool loop on deepseek-v4-pro keeps thinking when the message comes back whole; rebuilt without it, it goes on without', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const first = await openai().chat.completions.create({ model: 'deepseek-v4-pro', messages, tools, tool_choice: 'required' });
    const message = first.choices[0].message;
    const call = message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    const result: OpenAI.ChatCompletionMessageParam = { role: 'tool', tool_call_id: call.id, content: '18°C, clear' };
    // The SDK's own message object keeps reasoning_content and reasoning_details: thinking goes on, the effort is taken.
    const kept = await openai()
      .chat.completions.create({ model: 'deepseek-v4-pro', messages: [...messages, message, result], tools, reasoning_effort: 'high' })
      .withResponse();
    expect(kept.data.choices[0].message.content!.length).toBeGreaterThan(0);
    expect(kept.response.headers.get('x-ignored-parameters')).toBeNull();
    // A client that rebuilds the message without its reasoning: the loop still completes, the effort is ignored and named.
    const rebuilt: OpenAI.ChatCompletionMessageParam = { role: 'assistant', content: null, tool_calls: message.tool_calls };
    const effort = await openai()
      .chat.completions.create({ model: 'deepseek-v4-flash', messages: [...messages, rebuilt, result], tools, reasoning_effort: 'high' })
      .withResponse();
    expect(effort.data.choices[0].message.content!.length).toBeGreaterThan(0);
    expect(effort.response.headers.get('x-ignored-parameters')).toBe('reasoning_effort');
  });
});

describe('labels', () => {
  const labels = {
    metadata: { team: 'search' },
    service_tier: 'auto',
    store: false,
    user: 'end-user-7',
    prompt_cache_key: 'k1',
    safety_identifier: 'sid-7',
    seed: 7,
  };
  const ignoredOn = async (model: string) => {
    const { data, response } = await openai()
      .chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'hi' }],
        ...labels,
      } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .withResponse();
    expect(data.choices[0].message.content).toMatch(/hi/);
    return response.headers.get('x-ignored-parameters');
  };

  test('passed on to OpenAI, which takes them all', async () => {
    expect(await ignoredOn(textModel('openai').slug)).toBeNull();
  });

  test('accepted everywhere else, the ones a vendor lacks named in X-Ignored-Parameters', async () => {
    expect(await ignoredOn(textModel('anthropic').slug)).toBe('seed, metadata, service_tier, store, prompt_cache_key, safety_identifier');
    expect(await ignoredOn(textModel('google').slug)).toBe('user, metadata, service_tier, store, prompt_cache_key, safety_identifier');
    expect(await ignoredOn('deepseek-v4-flash')).toBe('seed, user, metadata, service_tier, store, prompt_cache_key, safety_identifier');
    expect(await ignoredOn('grok-4.20')).toBe('metadata, service_tier, store, prompt_cache_key, safety_identifier');
  });
});

describe('PDF documents as file parts', () => {
  const withPdf = (model: string, file: Record<string, unknown>) =>
    openai().chat.completions.create({
      model,
      messages: [
        { role: 'user', content: [{ type: 'file', file } as OpenAI.ChatCompletionContentPart, { type: 'text', text: 'Summarise' }] },
      ],
    });
  const pdf = { file_data: `data:application/pdf;base64,${PDF.toString('base64')}`, filename: 'report.pdf' };

  test.each(['gpt-6.1-sol', 'claude-haiku-4-5', 'gemini-3.5-flash'])('%s reads the PDF', async (model) => {
    const res = await withPdf(model, pdf);
    expect(res.choices[0].message.content).toMatch(/1 document/);
  });

  test('a vendor without documents answers 400 naming the part and its type', async () => {
    const err = await withPdf('deepseek-v4-flash', pdf).catch((e) => e);
    expect([err.status, err.error?.param]).toEqual([400, 'messages.0.content.0']);
    expect(err.message).toMatch(/"file"/);
  });

  test('a file that is not a base64 PDF, a file_id, an unknown part type: 400 naming the exact field', async () => {
    const notPdf = await withPdf('gpt-6.1-sol', { file_data: 'data:text/plain;base64,aGVsbG8=', filename: 'a.txt' }).catch((e) => e);
    expect([notPdf.status, notPdf.error?.param]).toEqual([400, 'messages.0.content.0.file.file_data']);
    const byId = await withPdf('gpt-6.1-sol', { file_id: 'file-abc' }).catch((e) => e);
    expect([byId.status, byId.error?.param]).toEqual([400, 'messages.0.content.0.file']);
    const audio = await openai()
      .chat.completions.create({
        model: 'gpt-6.1-sol',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hi' },
              { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
            ],
          },
        ],
      })
      .catch((e) => e);
    expect([audio.status, audio.error?.param]).toEqual([400, 'messages.0.content.1.type']);
    expect(audio.message).toMatch(/content part type "input_audio"/);
  });
});
