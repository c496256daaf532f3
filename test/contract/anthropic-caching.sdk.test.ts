import Anthropic from '@anthropic-ai/sdk';
import { createAnthropicSandbox } from '../../src/sandbox/anthropic';
import { useFake } from './sandbox';

// The official `@anthropic-ai/sdk` against the fake's prompt caching, as Anthropic documents it: a cache_control
// breakpoint over the model's minimum cacheable length writes the prefix (cache_creation_input_tokens) and a repeat
// reads it (cache_read_input_tokens), in the response and in the stream's usage; shorter prefixes are not cached;
// a breakpoint that moves forward still reads the earlier prefix; at most four breakpoints.

const fake = useFake('anthropic', createAnthropicSandbox({ streamDelayMs: 0 }));
const client = () => new Anthropic({ apiKey: 'sk-ant-contract', baseURL: fake.mount(), maxRetries: 0 });

/** About `tokens` tokens of text (the fake counts four characters a token), different for each `seed`. */
const manual = (seed: string, tokens: number) => `${seed} `.padEnd(tokens * 4, 'lorem ipsum dolor sit amet ');

function ask(system: string, question: string, ttl?: '1h'): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: 'claude-sonnet-4-6',
    max_tokens: 200,
    system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral', ...(ttl ? { ttl } : {}) } }],
    messages: [{ role: 'user', content: question }],
  };
}

test('a cached prefix is written once, then read; the rest of the prompt is input_tokens', async () => {
  const system = manual('first manual', 3000);
  const first = await client().messages.create(ask(system, 'Question one?'));
  expect(first.usage.cache_creation_input_tokens).toBe(3000);
  expect(first.usage.cache_read_input_tokens).toBe(0);
  expect(first.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: 3000, ephemeral_1h_input_tokens: 0 });
  const second = await client().messages.create(ask(system, 'Another question, longer this time?'));
  expect(second.usage.cache_read_input_tokens).toBe(3000);
  expect(second.usage.cache_creation_input_tokens).toBe(0);
  expect(second.usage.input_tokens).toBeGreaterThan(0);
  expect(second.usage.input_tokens).toBeLessThan(50);

  const streamed = await client()
    .messages.stream({ ...ask(system, 'Third?'), stream: undefined })
    .finalMessage();
  expect(streamed.usage.cache_read_input_tokens).toBe(3000);
});

test('the ttl is reported apart; a prefix under the minimum (2048 on Sonnet 4.6) is not cached', async () => {
  const hour = await client().messages.create(ask(manual('hourly manual', 2500), 'Q?', '1h'));
  expect(hour.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 2500 });
  const short = ask(manual('short manual', 1500), 'Q?');
  for (let i = 0; i < 2; i++) {
    const m = await client().messages.create(short);
    expect([m.usage.cache_creation_input_tokens, m.usage.cache_read_input_tokens]).toEqual([0, 0]);
  }
});

test('a conversation whose breakpoint moves to the newest block reads what the turn before wrote', async () => {
  const base = manual('conversation manual', 2200);
  const turn = (n: number): Anthropic.MessageParam[] =>
    Array.from({ length: n }, (_, i) => [
      { role: 'user' as const, content: i === 0 ? base : `Question ${i}?` },
      { role: 'assistant' as const, content: `Answer ${i}.` },
    ]).flat();
  const withMark = (messages: Anthropic.MessageParam[]): Anthropic.MessageParam[] => {
    const last = messages[messages.length - 1];
    const text = typeof last.content === 'string' ? last.content : '';
    return [...messages.slice(0, -1), { role: last.role, content: [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] }];
  };
  const one = await client().messages.create({
    model: 'claude-sonnet-4-6',
    max_tokens: 100,
    messages: withMark([...turn(1), { role: 'user', content: 'Next?' }]),
  });
  expect(one.usage.cache_creation_input_tokens).toBeGreaterThan(2200);
  const two = await client().messages.create({
    model: 'claude-sonnet-4-6',
    max_tokens: 100,
    messages: withMark([
      ...turn(1),
      { role: 'user', content: 'Next?' },
      { role: 'assistant', content: 'Sure.' },
      { role: 'user', content: 'More?' },
    ]),
  });
  expect(two.usage.cache_read_input_tokens).toBe(one.usage.cache_creation_input_tokens);
  expect(two.usage.cache_creation_input_tokens).toBeGreaterThan(0);
});

test('more than four breakpoints, or a malformed cache_control, is refused', async () => {
  const mark = { type: 'ephemeral' as const };
  const blocks = Array.from({ length: 5 }, (_, i) => ({ type: 'text' as const, text: `part ${i}`, cache_control: mark }));
  const err = (await client()
    .messages.create({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: blocks }] })
    .catch((e: unknown) => e)) as InstanceType<typeof Anthropic.BadRequestError>;
  expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  expect(err.message).toMatch(/A maximum of 4 blocks with cache_control may be provided. Found 5/);
  const bad = (await client()
    .messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: { type: 'persistent' } as never }] }],
    })
    .catch((e: unknown) => e)) as Error;
  expect(bad.message).toMatch(/cache_control\.type: Input should be 'ephemeral'/);
});
