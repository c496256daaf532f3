import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { openaiSandbox } from '../../src/sandbox/openai';
import type { SandboxHandler } from '../../src/sandbox/types';
import { ApiHarness, startApi } from '../api/harness';
import { weatherTool } from './models';

// Issue 35, "tools on every model that has them": gpt-6.1-terra and gpt-6.1-sol take tools only on OpenAI's Responses
// API, so a request with tools for them is sent there, from every surface (chat completions, responses, messages),
// streamed or not, and the tool loop completes.

const seen: { path: string; body: Record<string, unknown> }[] = [];
let api: ApiHarness;
let key: string;
beforeAll(async () => {
  const watched: SandboxHandler = (req, res) => {
    if (req.method === 'POST') seen.push({ path: req.path, body: JSON.parse(req.body.toString('utf8')) as Record<string, unknown> });
    return openaiSandbox(req, res);
  };
  api = await startApi({}, { handlers: { openai: watched } });
  key = await api.apiKey(await api.account('vip', { planTokens: 20000 }));
});
afterAll(() => api.close());
beforeEach(() => void (seen.length = 0));

const openai = () => new OpenAI({ apiKey: key, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: key, baseURL: api.baseUrl, maxRetries: 0 });
const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'What is the weather in Paris?' };

describe.each(['gpt-6.1-terra', 'gpt-6.1-sol'])('%s', (model) => {
  test('chat completions: the call goes to the Responses API; the tool loop completes', async () => {
    const first = await openai().chat.completions.create({ model, messages: [question], tools: [weatherTool] });
    expect(seen.map((s) => s.path)).toEqual(['/v1/responses']);
    expect(seen[0].body).toMatchObject({ model, store: false, tools: [{ type: 'function', name: 'get_weather' }] });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const call = first.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(JSON.parse(call.function.arguments)).toEqual({ city: expect.any(String) });
    const second = await openai().chat.completions.create({
      model,
      tools: [weatherTool],
      messages: [question, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"temp_c": 21}' }],
    });
    expect(second.choices[0].message.content).toMatch(/get_weather.*temp_c/);
    expect(seen[1].body.input).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'function_call', call_id: call.id, name: 'get_weather' }),
        { type: 'function_call_output', call_id: call.id, output: '{"temp_c": 21}' },
      ]),
    );
  });

  test('chat completions, streamed: the call arrives as tool_call deltas', async () => {
    const stream = await openai().chat.completions.create({ model, messages: [question], tools: [weatherTool], stream: true });
    let name = '';
    let args = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      name += delta?.tool_calls?.[0]?.function?.name ?? '';
      args += delta?.tool_calls?.[0]?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(seen[0].path).toBe('/v1/responses');
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ city: expect.any(String) });
    expect(finish).toBe('tool_calls');
  });

  test('responses: the reasoning of the calling turn is replayed with the tool result', async () => {
    const tools: OpenAI.Responses.FunctionTool[] = [
      { type: 'function', name: 'get_weather', parameters: weatherTool.function.parameters, strict: true },
    ];
    const first = await openai().responses.create({
      model,
      input: 'What is the weather in Paris?',
      tools,
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const call = first.output.find((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call')!;
    expect(call.name).toBe('get_weather');
    const reasoning = first.output.find((o) => o.type === 'reasoning') as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.encrypted_content).toEqual(expect.any(String));
    const second = await openai().responses.create({
      model,
      tools,
      store: false,
      input: [
        { role: 'user', content: 'What is the weather in Paris?' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: '{"temp_c": 21}' },
      ],
    });
    expect(second.output_text).toMatch(/get_weather/);
    // The vendor got its own reasoning back (the fake refuses reasoning it cannot open).
    expect((seen[1].body.input as { type?: string }[]).filter((i) => i.type === 'reasoning')).toHaveLength(1);
  });

  test('messages: tool_use, then the answer from the tool_result', async () => {
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
    const first = await anthropic().messages.create({
      model,
      max_tokens: 1000,
      tools,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    expect(use.name).toBe('get_weather');
    expect(first.stop_reason).toBe('tool_use');
    const second = await anthropic().messages.create({
      model,
      max_tokens: 1000,
      tools,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '21 degrees' }] },
      ],
    });
    expect(second.content.find((b) => b.type === 'text')).toMatchObject({ text: expect.stringMatching(/get_weather returned 21 degrees/) });
    expect(seen.map((s) => s.path)).toEqual(['/v1/responses', '/v1/responses']);
  });
});

test('without tools these models stay on Chat Completions', async () => {
  await openai().chat.completions.create({ model: 'gpt-6.1-terra', messages: [question] });
  expect(seen.map((s) => s.path)).toEqual(['/v1/chat/completions']);
});
