import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { ApiHarness, startApi } from '../api/harness';
import { recording } from './recording';

// OpenAI's own reasoning state through the service: a client that keeps reasoning (Responses include
// reasoning.encrypted_content, Messages with thinking) gets the answer from OpenAI's Responses API, the only one that
// hands the state out; OpenAI's encrypted content comes back as it is on /v1/responses (sealed in a block on
// /v1/messages), and replayed it reaches OpenAI unchanged, which verifies it.

const openaiFake = recording(createOpenAiSandbox({ chunkDelayMs: 0 }));
let api: ApiHarness;
beforeAll(async () => {
  api = await startApi(undefined, { handlers: { openai: openaiFake.handler } });
});
afterAll(() => api.close());

const key = async () => api.apiKey(await api.account('vip', { planTokens: 5000, bonusTokens: 0 }));
const lastSent = () =>
  openaiFake.bodies[openaiFake.bodies.length - 1] as { input?: Array<Record<string, unknown>> } & Record<string, unknown>;
const MODEL = 'gpt-6.2-sol';

test('responses: OpenAI encrypted reasoning passes through both ways, and the loop continues', async () => {
  const openai = new OpenAI({ apiKey: await key(), baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
  const tools: OpenAI.Responses.Tool[] = [
    { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false },
  ];
  const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Paris?' }];
  const params = {
    model: MODEL,
    tools,
    reasoning: { effort: 'high' as const },
    include: ['reasoning.encrypted_content' as const],
    store: false,
  };
  const first = await openai.responses.create({ ...params, input });
  expect(lastSent()).toMatchObject({ store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'high' } });
  const item = first.output.find((o) => o.type === 'reasoning') as OpenAI.Responses.ResponseReasoningItem;
  expect(item.encrypted_content).toBeTruthy();
  expect(item.encrypted_content).not.toMatch(/^nbr1\./);
  expect(item.id).toMatch(/^rs_/);
  expect(first.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
  const second = await openai.responses.create({
    ...params,
    input: [
      ...input,
      ...first.output,
      { type: 'function_call_output', call_id: call.call_id, output: '18C' },
    ] as OpenAI.Responses.ResponseInput,
  });
  expect(second.status).toBe('completed');
  const replayed = lastSent().input!.find((i) => i.type === 'reasoning');
  expect(replayed).toMatchObject({ id: item.id, encrypted_content: item.encrypted_content });
});

test('messages: thinking on an OpenAI model carries its encrypted reasoning sealed, and the replay restores it', async () => {
  const anthropic = new Anthropic({ apiKey: await key(), baseURL: api.baseUrl, maxRetries: 0 });
  const tool: Anthropic.Tool = { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
  const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
  const params = { model: MODEL, max_tokens: 4000, tools: [tool], thinking: { type: 'adaptive' as const } };
  const first = await anthropic.messages.create({ ...params, messages: [question] });
  const issued = openaiFake.answers[openaiFake.answers.length - 1];
  const blocks = first.content.filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
  expect(blocks.length).toBe(1);
  const use = first.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
  await anthropic.messages.create({
    ...params,
    messages: [
      question,
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18C' }] },
    ],
  });
  const replayed = lastSent().input!.find((i) => i.type === 'reasoning') as { encrypted_content: string };
  expect(issued).toContain(replayed.encrypted_content);
});
