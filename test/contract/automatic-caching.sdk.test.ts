import OpenAI from 'openai';
import { createDeepSeekSandbox } from '../../src/sandbox/deepseek';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { createXaiSandbox } from '../../src/sandbox/xai';
import { useFake } from './sandbox';

// The vendors that cache prompts on their own, through the official OpenAI SDK (their documented client): OpenAI
// ("Prompt caching": 1024 tokens or more, hits in 128-token steps, prompt_cache_key routes requests together, reported
// as prompt_tokens_details.cached_tokens), xAI (the same report) and DeepSeek ("Context caching": 64-token units,
// prompt_cache_hit_tokens and prompt_cache_miss_tokens).

const openai = useFake('openai', createOpenAiSandbox({ chunkDelayMs: 0 }));
const xai = useFake('xai', createXaiSandbox({ chunkDelayMs: 0 }));
const deepseek = useFake('deepseek', createDeepSeekSandbox({ chunkDelayMs: 0 }));

const manual = (seed: string) => `${seed}: ${'the shared instructions of every request today. '.repeat(200)}`;
const ask = (client: OpenAI, model: string, system: string, question: string, key?: string) =>
  client.chat.completions.create({
    model,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: question },
    ],
    ...(key ? { prompt_cache_key: key } : {}),
  });
const cachedOf = (c: OpenAI.ChatCompletion) => c.usage!.prompt_tokens_details?.cached_tokens ?? 0;

test('OpenAI: a repeated long prefix is read from the cache in 128-token steps, per prompt_cache_key', async () => {
  const client = new OpenAI({ apiKey: 'sk-contract', baseURL: `${openai.mount()}/v1`, maxRetries: 0 });
  const system = manual('openai');
  const first = await ask(client, 'gpt-6-luna', system, 'First?', 'team-a');
  expect(cachedOf(first)).toBe(0);
  const second = await ask(client, 'gpt-6-luna', system, 'Second, a different question?', 'team-a');
  expect(cachedOf(second)).toBeGreaterThanOrEqual(1024);
  expect(cachedOf(second) % 128).toBe(0);
  expect(cachedOf(second)).toBeLessThan(second.usage!.prompt_tokens);
  // Another key is routed elsewhere: no hit there yet.
  expect(cachedOf(await ask(client, 'gpt-6-luna', system, 'Third?', 'team-b'))).toBe(0);
  // Short prompts are never cached.
  for (let i = 0; i < 2; i++) expect(cachedOf(await ask(client, 'gpt-6-luna', 'Be brief.', 'Hi?'))).toBe(0);
});

test('xAI: repeated prefixes report cached_tokens the same way', async () => {
  const client = new OpenAI({ apiKey: 'xai-contract', baseURL: `${xai.mount()}/v1`, maxRetries: 0 });
  const system = manual('xai');
  await ask(client, 'grok-4.3', system, 'First?');
  expect(cachedOf(await ask(client, 'grok-4.3', system, 'Second?'))).toBeGreaterThanOrEqual(1024);
});

test('DeepSeek: context caching reports hit and miss tokens that add up to the prompt', async () => {
  const client = new OpenAI({ apiKey: 'sk-contract', baseURL: deepseek.mount(), maxRetries: 0 });
  const system = manual('deepseek');
  const first = await ask(client, 'deepseek-v4-flash', system, 'First?');
  const usage = (c: OpenAI.ChatCompletion) =>
    c.usage as unknown as { prompt_tokens: number; prompt_cache_hit_tokens: number; prompt_cache_miss_tokens: number };
  expect(usage(first).prompt_cache_hit_tokens).toBe(0);
  const second = usage(await ask(client, 'deepseek-v4-flash', system, 'Second?'));
  expect(second.prompt_cache_hit_tokens).toBeGreaterThan(0);
  expect(second.prompt_cache_hit_tokens % 64).toBe(0);
  expect(second.prompt_cache_hit_tokens + second.prompt_cache_miss_tokens).toBe(second.prompt_tokens);
});

test('OpenAI Responses: input_tokens_details.cached_tokens on a repeated prefix, per prompt_cache_key', async () => {
  const client = new OpenAI({ apiKey: 'sk-contract', baseURL: `${openai.mount()}/v1`, maxRetries: 0 });
  const instructions = manual('responses');
  const ask = (input: string, key: string) =>
    client.responses.create({ model: 'gpt-6-luna', instructions, input, prompt_cache_key: key, store: false });
  expect((await ask('First?', 'k1')).usage!.input_tokens_details.cached_tokens).toBe(0);
  const second = (await ask('Second?', 'k1')).usage!;
  expect(second.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
  expect(second.input_tokens_details.cached_tokens % 128).toBe(0);
  expect((await ask('Third?', 'k2')).usage!.input_tokens_details.cached_tokens).toBe(0);
});
