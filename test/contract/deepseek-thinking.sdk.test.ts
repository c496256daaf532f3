import OpenAI from 'openai';
import { createDeepSeekSandbox } from '../../src/sandbox/deepseek';
import { useFake } from './sandbox';

// DeepSeek's thinking mode (issue 26) through the OpenAI SDK, DeepSeek's documented client: `thinking` in the body
// (extra_body in the Python SDK), `reasoning_effort` with DeepSeek's own value list.

const fake = useFake('deepseek', createDeepSeekSandbox({ chunkDelayMs: 0 }));
const client = () => new OpenAI({ apiKey: 'sk-contract', baseURL: fake.mount(), maxRetries: 0 });

type Reply = OpenAI.ChatCompletion & { choices: { message: { reasoning_content?: string | null } }[] };
const ask = async (body: Record<string, unknown>) =>
  (await client().chat.completions.create({
    messages: [{ role: 'user', content: '9.11 or 9.8?' }],
    ...body,
  } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)) as Reply;

test('deepseek-v4-flash thinks by default (reasoning_content beside the answer) and answers directly with thinking disabled', async () => {
  const plain = await ask({ model: 'deepseek-v4-flash' });
  expect(plain.choices[0].message.reasoning_content!.length).toBeGreaterThan(0);
  expect(plain.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
  const thinking = await ask({ model: 'deepseek-v4-flash', thinking: { type: 'enabled' } });
  expect(thinking.choices[0].message.reasoning_content!.length).toBeGreaterThan(0);
  const off = await ask({ model: 'deepseek-v4-flash', thinking: { type: 'disabled' } });
  expect(off.choices[0].message.reasoning_content ?? null).toBeNull();
});

test('the retired deepseek-chat and deepseek-reasoner names are gone', async () => {
  for (const model of ['deepseek-chat', 'deepseek-reasoner']) {
    expect(await ask({ model }).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.APIError);
  }
});

test('reasoning_effort: the documented values are taken, more effort reasons longer', async () => {
  const tokens = async (effort: string) =>
    (await ask({ model: 'deepseek-v4-pro', reasoning_effort: effort })).usage!.completion_tokens_details!.reasoning_tokens!;
  expect(await tokens('high')).toBeGreaterThan(await tokens('low'));
  for (const effort of ['minimal', 'medium', 'xhigh', 'max', 'ultra']) {
    expect((await ask({ model: 'deepseek-v4-pro', reasoning_effort: effort })).choices[0].message.content!.length).toBeGreaterThan(0);
  }
});

test('an unknown thinking type is a 422 and an unknown effort a 400, as DeepSeek answers them', async () => {
  const type = await ask({ model: 'deepseek-v4-flash', thinking: { type: 'auto' } }).catch((e: unknown) => e);
  expect(type).toBeInstanceOf(OpenAI.UnprocessableEntityError);
  expect((type as Error).message).toMatch(/expected `enabled` or `disabled`/);
  const effort = await ask({ model: 'deepseek-v4-pro', reasoning_effort: 'extreme' }).catch((e: unknown) => e);
  expect(effort).toBeInstanceOf(OpenAI.BadRequestError);
  expect((effort as Error).message).toMatch(/Invalid reasoning_effort value: extreme/);
});

test('in thinking mode a tool-calling turn must come back with its reasoning_content; without thinking it need not', async () => {
  const weather = {
    type: 'function' as const,
    function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  };
  const called = {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
  };
  const history = (assistant: Record<string, unknown>) => ({
    model: 'deepseek-v4-pro',
    tools: [weather],
    messages: [{ role: 'user', content: 'Weather in Paris?' }, assistant, { role: 'tool', tool_call_id: 'call_1', content: '18°C, clear' }],
  });
  const dropped = await ask(history(called)).catch((e: unknown) => e);
  expect(dropped).toBeInstanceOf(OpenAI.BadRequestError);
  expect((dropped as Error).message).toMatch(/reasoning_content in the thinking mode must be passed back/);
  const kept = await ask(history({ ...called, reasoning_content: 'Look the weather up first.' }));
  expect(kept.choices[0].message.content!.length).toBeGreaterThan(0);
  const noThinking = await ask({ ...history(called), thinking: { type: 'disabled' } });
  expect(noThinking.choices[0].message.content!.length).toBeGreaterThan(0);
});
