import OpenAI from 'openai';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { useFake } from './sandbox';

// The official `openai` SDK as the client of the OpenAI fake, for what issue 35 taught its Chat Completions: `n`
// choices, token `logprobs` (from reasoning models only with reasoning off) and `verbosity`.

const fake = useFake('openai', createOpenAiSandbox({ chunkDelayMs: 0, now: () => new Date('2026-11-27T12:00:00Z') }));
const client = () => new OpenAI({ apiKey: 'sk-contract', baseURL: `${fake.mount()}/v1`, maxRetries: 0 });
const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Why is the sky blue?' }];

async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

test('n: that many choices, with usage counting them all; streamed under their indexes', async () => {
  const one = await client().chat.completions.create({ model: 'gpt-4o', messages });
  const three = await client().chat.completions.create({ model: 'gpt-4o', messages, n: 3 });
  expect(three.choices.map((c) => c.index)).toEqual([0, 1, 2]);
  expect(three.usage!.completion_tokens).toBeGreaterThanOrEqual(3 * one.usage!.completion_tokens);
  const stream = await client().chat.completions.create({ model: 'gpt-4o', messages, n: 2, stream: true });
  const text = ['', ''];
  for await (const chunk of stream) for (const c of chunk.choices) text[c.index] += c.delta.content ?? '';
  expect(text.every((t) => t.length > 0)).toBe(true);
  expect((await refusal(client().chat.completions.create({ model: 'gpt-4o', messages, n: 0 }))).param).toBe('n');
});

test('logprobs with top_logprobs: every answer token, its alternatives; streamed per chunk', async () => {
  const res = await client().chat.completions.create({ model: 'gpt-4o', messages, logprobs: true, top_logprobs: 3 });
  const content = res.choices[0].logprobs!.content!;
  expect(content.map((t) => t.token).join('')).toBe(res.choices[0].message.content);
  expect(content[0].top_logprobs).toHaveLength(3);
  expect(content[0].bytes).toEqual([...Buffer.from(content[0].token)]);
  const stream = await client().chat.completions.create({ model: 'gpt-4o', messages, logprobs: true, stream: true });
  let tokens = '';
  let text = '';
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    tokens += (chunk.choices[0]?.logprobs?.content ?? []).map((t) => t.token).join('');
  }
  expect(tokens).toBe(text);
  expect((await refusal(client().chat.completions.create({ model: 'gpt-4o', messages, top_logprobs: 2 }))).param).toBe('top_logprobs');
});

test('logprobs on a reasoning model: only with reasoning_effort none', async () => {
  const off = await client().chat.completions.create({ model: 'gpt-6-luna', messages, logprobs: true, reasoning_effort: 'none' });
  expect(off.choices[0].logprobs!.content!.length).toBeGreaterThan(0);
  const err = await refusal(client().chat.completions.create({ model: 'gpt-6-luna', messages, logprobs: true }));
  expect(err.param).toBe('logprobs');
});

test('verbosity: taken by GPT-5 and later, refused by older models and outside its values', async () => {
  const res = await client().chat.completions.create({ model: 'gpt-6-luna', messages, verbosity: 'low' });
  expect(res.choices[0].message.content).toBeTruthy();
  expect((await refusal(client().chat.completions.create({ model: 'gpt-4o', messages, verbosity: 'low' }))).param).toBe('verbosity');
  const bad = await refusal(
    client().chat.completions.create({
      model: 'gpt-6-luna',
      messages,
      verbosity: 'loud' as OpenAI.ChatCompletionCreateParams['verbosity'],
    }),
  );
  expect(bad.param).toBe('verbosity');
});
