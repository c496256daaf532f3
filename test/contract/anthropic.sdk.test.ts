import Anthropic from '@anthropic-ai/sdk';
import { createAnthropicSandbox } from '../../src/sandbox/anthropic';
import { useFake } from './sandbox';

// The official `@anthropic-ai/sdk` as the client of our Anthropic fake: the Messages API, sync and streamed,
// both ways of authenticating, and the error answers.

const fake = useFake('anthropic', createAnthropicSandbox({ streamDelayMs: 0 }));
const client = (apiKey = 'sk-ant-contract') => new Anthropic({ apiKey, baseURL: fake.mount(), maxRetries: 0 });
const ask = (content: string) => ({ model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user' as const, content }] });

test('messages.create: a message with text content, stop_reason and usage', async () => {
  const m = await client().messages.create({ ...ask('Say hi'), system: 'Be brief.' });
  expect(m.type).toBe('message');
  expect(m.role).toBe('assistant');
  expect(m.content[0].type).toBe('text');
  expect(m.stop_reason).toMatch(/end_turn|max_tokens/);
  expect(m.usage.output_tokens).toBeGreaterThan(0);
});

test('messages.stream: the SDK assembles the final message from the events', async () => {
  const stream = client().messages.stream(ask('Count to three'));
  const deltas: string[] = [];
  stream.on('text', (t) => deltas.push(t));
  const m = await stream.finalMessage();
  expect(deltas.join('')).toBe(m.content.map((b) => (b.type === 'text' ? b.text : '')).join(''));
  expect(m.stop_reason).toBeTruthy();
  expect(m.usage.output_tokens).toBeGreaterThan(0);
});

test('an auth token (Authorization: Bearer) is accepted, as the API accepts it', async () => {
  const bearer = new Anthropic({ apiKey: null, authToken: 'sk-ant-oat-contract', baseURL: fake.mount(), maxRetries: 0 });
  const m = await bearer.messages.create(ask('hi'));
  expect(m.type).toBe('message');
});

test('error answers become the SDK error classes with the documented error types', async () => {
  const busy = await client()
    .messages.create(ask('x [[fail:overloaded]]'))
    .catch((e: unknown) => e);
  expect(busy).toBeInstanceOf(Anthropic.APIError);
  expect(busy).toMatchObject({ status: 529 });
  expect((busy as { error: { error: { type: string } } }).error.error.type).toBe('overloaded_error');

  const bad = await client()
    .messages.create({ ...ask('x'), max_tokens: 0 })
    .catch((e: unknown) => e);
  expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
});
