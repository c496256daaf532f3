import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createAnthropicSandbox } from '../../src/sandbox/anthropic';
import { ApiHarness, startApi } from '../api/harness';
import { recording } from './recording';

// Claude's reasoning and prompt caching through the three surfaces, against the Anthropic fake that signs thinking,
// refuses altered or missing blocks, and caches: the blocks come back in each surface's shape, a client that replays
// them (as each SDK's own objects) gives Anthropic exactly what it produced, and a cached prompt costs less.

const anthropicFake = recording(createAnthropicSandbox({ streamDelayMs: 0 }));
let api: ApiHarness;
beforeAll(async () => {
  api = await startApi(undefined, { handlers: { anthropic: anthropicFake.handler } });
});
afterAll(() => api.close());
beforeEach(() => {
  anthropicFake.bodies.length = 0;
});

async function key(tokens = 5000): Promise<string> {
  return api.apiKey(await api.account('vip', { planTokens: tokens, bonusTokens: 0 }));
}
const lastSent = () =>
  anthropicFake.bodies[anthropicFake.bodies.length - 1] as { messages: Array<{ role: string; content: unknown[] }> } & Record<
    string,
    unknown
  >;

const weather: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('/v1/messages', () => {
  const client = async () => new Anthropic({ apiKey: await key(), baseURL: api.baseUrl, maxRetries: 0 });

  test('thinking reaches Claude; signed blocks come back; the tool loop replays them byte for byte', async () => {
    const anthropic = await client();
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const params = {
      model: 'claude-sonnet-4-6',
      max_tokens: 8000,
      tools: [weather],
      thinking: { type: 'adaptive' as const },
      output_config: { effort: 'high' as const },
    };
    const first = await anthropic.messages.create({ ...params, messages: [question] });
    expect(lastSent()).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
    expect(first.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    const use = first.content[2] as Anthropic.ToolUseBlock;
    const second = await anthropic.messages.create({
      ...params,
      messages: [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18C' }] },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    const replayed = lastSent().messages[1].content[0];
    expect(JSON.stringify(replayed)).toBe(JSON.stringify(first.content[0]));
  });

  test('streamed: thinking_delta then signature_delta, and the assembled block replays', async () => {
    const anthropic = await client();
    const types: string[] = [];
    const stream = anthropic.messages.stream({
      model: 'claude-haiku-4-5',
      max_tokens: 8000,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [{ role: 'user', content: 'Think about Paris.' }],
    });
    stream.on('streamEvent', (ev) => {
      if (ev.type === 'content_block_delta') types.push(ev.delta.type);
    });
    const final = await stream.finalMessage();
    expect(lastSent().thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(types.indexOf('signature_delta')).toBe(types.lastIndexOf('thinking_delta') + 1);
    const thought = final.content[0] as Anthropic.ThinkingBlock;
    expect(thought.signature).toBeTruthy();
    const again = await anthropic.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 8000,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [
        { role: 'user', content: 'Think about Paris.' },
        { role: 'assistant', content: final.content },
        { role: 'user', content: 'More?' },
      ],
    });
    expect(again.stop_reason).toBe('end_turn');
    expect(lastSent().messages[1].content[0]).toEqual({ type: 'thinking', thinking: thought.thinking, signature: thought.signature });
  });

  test('cache_control reaches Claude; a cached second request reports the read and costs fewer tokens than the first', async () => {
    const anthropic = await client();
    const manual = 'The reference manual of the lighthouse keepers, chapter and verse. '.repeat(1300);
    const ask = (q: string) =>
      anthropic.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 100,
        system: [{ type: 'text', text: manual, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: q }],
      });
    const first = await ask('What is chapter one about?');
    expect((lastSent().system as unknown[])[0]).toMatchObject({ cache_control: { type: 'ephemeral' } });
    const second = await ask('And chapter two?');
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(20_000);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.input_tokens).toBeLessThan(100);
    const spent = (m: Anthropic.Message) => (m as unknown as { service: { tokens_spent: number } }).service.tokens_spent;
    expect(spent(second)).toBeLessThan(spent(first));
  });
});

describe('/v1/responses', () => {
  test('reasoning items with encrypted_content; replayed, Claude gets its signed block unchanged', async () => {
    const openai = new OpenAI({ apiKey: await key(), baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
    const tools: OpenAI.Responses.Tool[] = [
      { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false },
    ];
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.responses.create({
      model: 'claude-haiku-4-5',
      input,
      tools,
      reasoning: { effort: 'medium', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      store: false,
    });
    expect(lastSent().thinking).toMatchObject({ type: 'enabled' });
    const item = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(item.type).toBe('reasoning');
    expect(item.summary[0].text).toMatch(/Sandbox thinking/);
    expect(item.encrypted_content).toMatch(/^nbr1\./);
    expect(first.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await openai.responses.create({
      model: 'claude-haiku-4-5',
      input: [
        ...input,
        ...first.output,
        { type: 'function_call_output', call_id: call.call_id, output: '18C' },
      ] as OpenAI.Responses.ResponseInput,
      tools,
      reasoning: { effort: 'medium' },
      include: ['reasoning.encrypted_content'],
      store: false,
    });
    expect(second.status).toBe('completed');
    const sent = lastSent().messages[1].content[0] as { type: string; thinking: string; signature: string };
    // The fake verifies the signature against the text: the block reached it unchanged.
    expect(sent).toEqual({ type: 'thinking', thinking: item.summary[0].text, signature: expect.any(String) });
    expect(sent.signature).not.toMatch(/^nbr1\./);
  });
});

test('/v1/responses streamed: reasoning summary events, then the item with its encrypted content', async () => {
  const openai = new OpenAI({ apiKey: await key(), baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
  const stream = openai.responses.stream({
    model: 'claude-haiku-4-5',
    input: 'Think about tides.',
    reasoning: { effort: 'low', summary: 'auto' },
    include: ['reasoning.encrypted_content'],
    store: false,
  });
  const types: string[] = [];
  stream.on('event', (ev) => types.push(ev.type));
  const final = await stream.finalResponse();
  expect(types).toEqual(
    expect.arrayContaining([
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
    ]),
  );
  expect(types.indexOf('response.reasoning_summary_text.done')).toBeLessThan(types.indexOf('response.output_text.delta'));
  const item = final.output[0] as OpenAI.Responses.ResponseReasoningItem;
  expect(item).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: expect.stringMatching(/Sandbox thinking/) }] });
  expect(item.encrypted_content).toMatch(/^nbr1\./);
});

describe('/v1/chat/completions', () => {
  test('reasoning_content and reasoning_details; the SDK message replayed as it came continues the tool loop', async () => {
    const openai = new OpenAI({ apiKey: await key(), baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.chat.completions.create({ model: 'claude-sonnet-4-6', messages, tools, reasoning_effort: 'low' });
    const message = first.choices[0].message as OpenAI.ChatCompletionMessage & {
      reasoning_content?: string;
      reasoning_details?: Array<{ type: string; text: string; signature: string; format: string }>;
    };
    expect(message.reasoning_content).toMatch(/Sandbox thinking/);
    expect(message.reasoning_details).toEqual([
      { type: 'reasoning.text', text: message.reasoning_content, signature: expect.any(String), format: 'anthropic-claude-v1', index: 0 },
    ]);
    expect(first.usage?.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
    const call = message.tool_calls![0];
    const second = await openai.chat.completions.create({
      model: 'claude-sonnet-4-6',
      messages: [...messages, message, { role: 'tool', tool_call_id: call.id, content: '18C' }],
      tools,
      reasoning_effort: 'low',
    });
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(lastSent().messages[1].content[0]).toEqual({
      type: 'thinking',
      thinking: message.reasoning_content,
      signature: message.reasoning_details![0].signature,
    });
    expect(lastSent()).toMatchObject({ thinking: { type: 'adaptive' } });
  });

  test('cache_control on a vendor that caches on its own is ignored and named', async () => {
    const openai = new OpenAI({ apiKey: await key(), baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
    const mark = { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } } as OpenAI.ChatCompletionContentPartText;
    const ask = (model: string) =>
      openai.chat.completions
        .create({
          model,
          messages: [
            { role: 'system', content: [mark] },
            { role: 'user', content: 'Hi?' },
          ],
        })
        .withResponse();
    expect((await ask('deepseek-v4-flash')).response.headers.get('x-ignored-parameters')).toBe('cache_control');
    expect((await ask('claude-haiku-4-5')).response.headers.get('x-ignored-parameters')).toBeNull();
  });

  test('cache_control on chat content parts reaches Claude; cached_tokens in prompt_tokens_details', async () => {
    const openai = new OpenAI({ apiKey: await key(), baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
    const manual = 'A long shared context for every question of the day. '.repeat(900);
    const ask = () =>
      openai.chat.completions.create({
        model: 'claude-sonnet-4-6',
        messages: [
          {
            role: 'system',
            content: [{ type: 'text', text: manual, cache_control: { type: 'ephemeral' } } as OpenAI.ChatCompletionContentPartText],
          },
          { role: 'user', content: 'Question?' },
        ],
      });
    const first = await ask();
    const second = await ask();
    const details = (u: OpenAI.CompletionUsage | undefined) =>
      u?.prompt_tokens_details as { cached_tokens: number; cache_write_tokens?: number };
    expect(details(first.usage).cache_write_tokens).toBeGreaterThan(10_000);
    expect(details(second.usage).cached_tokens).toBe(details(first.usage).cache_write_tokens);
  });
});
