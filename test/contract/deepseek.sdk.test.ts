import OpenAI from 'openai';
import { createDeepSeekSandbox } from '../../src/sandbox/deepseek';
import { useFake } from './sandbox';

// DeepSeek documents the OpenAI SDK as its client (base URL https://api.deepseek.com): chat, the reasoner's
// reasoning_content, streaming with usage, and its 402 / 429 / 503 answers.

const fake = useFake('deepseek', createDeepSeekSandbox({ chunkDelayMs: 0 }));
const client = () => new OpenAI({ apiKey: 'sk-contract', baseURL: fake.mount(), maxRetries: 0 });

test('deepseek-v4-flash, and deepseek-v4-pro with reasoning_content beside the answer', async () => {
  const chat = await client().chat.completions.create({ model: 'deepseek-v4-flash', messages: [{ role: 'user', content: 'hi' }] });
  expect(chat.choices[0].message.content!.length).toBeGreaterThan(0);
  const reasoner = await client().chat.completions.create({
    model: 'deepseek-v4-pro',
    messages: [{ role: 'user', content: '9.11 or 9.8?' }],
  });
  const message = reasoner.choices[0].message as { content: string; reasoning_content?: string };
  expect(typeof message.reasoning_content).toBe('string');
  expect(message.content.length).toBeGreaterThan(0);
});

test('a stream ends with a finish reason and usage', async () => {
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  const stream = await client().chat.completions.create({
    model: 'deepseek-v4-flash',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const chunk of stream) {
    finish = chunk.choices[0]?.finish_reason ?? finish;
    usage = chunk.usage ?? usage;
  }
  expect(finish).toBe('stop');
  expect(usage!.total_tokens).toBeGreaterThan(0);
});

test('402 insufficient balance, 429 rate limit and 503 overload reach the SDK with their statuses', async () => {
  const ask = (content: string) =>
    client()
      .chat.completions.create({ model: 'deepseek-v4-flash', messages: [{ role: 'user', content }] })
      .catch((e: unknown) => e);
  expect(await ask('[[fail:balance]]')).toMatchObject({ status: 402 });
  expect(await ask('[[fail:rate_limit]]')).toBeInstanceOf(OpenAI.RateLimitError);
  expect(await ask('[[fail:overloaded]]')).toMatchObject({ status: 503 });
});
