import OpenAI from 'openai';
import { createXaiSandbox } from '../../src/sandbox/xai';
import { useFake } from './sandbox';

// xAI's reasoning_effort (issue 26) through the OpenAI SDK, xAI's documented client: grok-3-mini takes low or
// high and shows its reasoning_content; grok-4.3 takes none, low, medium or high (docs.x.ai, Reasoning: "If not
// specified, reasoning_effort defaults to low. If set to none, no reasoning will occur"); models without an effort
// control refuse the parameter.

const fake = useFake('xai', createXaiSandbox({ chunkDelayMs: 0 }));
const client = () => new OpenAI({ apiKey: 'xai-contract', baseURL: `${fake.mount()}/v1`, maxRetries: 0 });
const ask = (model: string, reasoning_effort?: OpenAI.ReasoningEffort) =>
  client().chat.completions.create({ model, messages: [{ role: 'user', content: 'What is 101*3?' }], reasoning_effort });

test('grok-3-mini: high reasons longer than low; the reasoning is in reasoning_content and counted apart', async () => {
  const low = await ask('grok-3-mini', 'low');
  const high = await ask('grok-3-mini', 'high');
  const reasoningOf = (r: OpenAI.ChatCompletion) => r.usage!.completion_tokens_details!.reasoning_tokens!;
  expect(reasoningOf(high)).toBeGreaterThan(reasoningOf(low));
  expect((high.choices[0].message as { reasoning_content?: string }).reasoning_content!.length).toBeGreaterThan(0);
  // xAI counts reasoning beside the completion: total = prompt + completion + reasoning.
  expect(high.usage!.total_tokens).toBe(high.usage!.prompt_tokens + high.usage!.completion_tokens + reasoningOf(high));
});

test('grok-4.3: none reasons not at all, then low < medium < high; unset is low', async () => {
  const reasoningOf = async (effort?: string) =>
    (await ask('grok-4.3', effort as OpenAI.ReasoningEffort)).usage!.completion_tokens_details!.reasoning_tokens!;
  const [none, low, medium, high, unset] = [
    await reasoningOf('none'),
    await reasoningOf('low'),
    await reasoningOf('medium'),
    await reasoningOf('high'),
    await reasoningOf(undefined),
  ];
  expect(none).toBe(0);
  expect(low).toBeGreaterThan(0);
  expect(medium).toBeGreaterThan(low);
  expect(high).toBeGreaterThan(medium);
  expect(unset).toBe(low);
  const minimal = await ask('grok-4.3', 'minimal').catch((e: unknown) => e);
  expect(minimal).toBeInstanceOf(OpenAI.BadRequestError);
  expect((minimal as Error).message).toMatch(/Expected one of: none, low, medium, high/);
});

test('an effort grok-3-mini does not know, and a model without the control, are refused (400)', async () => {
  const medium = await ask('grok-3-mini', 'medium').catch((e: unknown) => e);
  expect(medium).toBeInstanceOf(OpenAI.BadRequestError);
  expect((medium as Error).message).toMatch(/Expected one of: low, high/);
  const other = await ask('grok-4.20-non-reasoning', 'low').catch((e: unknown) => e);
  expect(other).toBeInstanceOf(OpenAI.BadRequestError);
  expect((other as Error).message).toMatch(/does not support parameter reasoningEffort/);
});
