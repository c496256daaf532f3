import { anthropicAdapter } from '../../src/core/providers/anthropic';
import { ChatMessage, ChatReasoning, ChatRequest } from '../../src/core/providers/types';
import { createAnthropicSandbox } from '../../src/sandbox/anthropic';
import { REDACTED_THINKING_TRIGGER } from '../../src/sandbox/anthropic-thinking';
import { collect, useVendorSandbox } from '../support/vendor-sandbox';

// Reasoning and prompt caching through the Anthropic adapter, against the fake that checks signatures and caches:
// each model's thinking control, Claude's signed and redacted blocks back as the core's reasoning and forward again
// unchanged, cache marks as cache_control, cache reads and writes in the usage.

const chat = anthropicAdapter.chat!;
const { conn, lastBody } = useVendorSandbox(anthropicAdapter, createAnthropicSandbox({ streamDelayMs: 0 }));

const tools = [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
const question: ChatMessage = { role: 'user', content: 'Weather in Paris?' };
const ask = (model: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  upstreamModel: model,
  messages: [question],
  maxTokens: 8000,
  ...extra,
});

describe('thinking control per model', () => {
  test.each([
    ['claude-haiku-4-5', { reasoningEffort: 'high' }, { thinking: { type: 'enabled', budget_tokens: 4000 } }],
    ['claude-sonnet-4-6', { reasoningEffort: 'minimal' }, { thinking: { type: 'adaptive' }, output_config: { effort: 'low' } }],
    ['claude-sonnet-4-6', { reasoningEffort: 'xhigh' }, { thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }],
    ['claude-opus-4-8', { reasoningEffort: 'xhigh' }, { thinking: { type: 'adaptive' }, output_config: { effort: 'xhigh' } }],
    ['claude-sonnet-4-6', { thinking: { type: 'budget', budgetTokens: 3000 } }, { thinking: { type: 'enabled', budget_tokens: 3000 } }],
    [
      'claude-opus-4-8',
      { thinking: { type: 'budget', budgetTokens: 3000 } },
      { thinking: { type: 'adaptive' }, output_config: { effort: 'medium' } },
    ],
    ['claude-haiku-4-5', { thinking: { type: 'adaptive' } }, { thinking: { type: 'enabled', budget_tokens: 4000 } }],
    [
      'claude-opus-4-8',
      { thinking: { type: 'adaptive' }, reasoningEffort: 'max' },
      { thinking: { type: 'adaptive' }, output_config: { effort: 'max' } },
    ],
    ['claude-opus-4-8', { thinking: { type: 'disabled' } }, { thinking: { type: 'disabled' } }],
    [
      'claude-opus-4-8',
      { thinking: { type: 'adaptive', display: 'summarized' } },
      { thinking: { type: 'adaptive', display: 'summarized' } },
    ],
  ] as const)('%s with %j sends %j, and the fake accepts it', async (model, asked, sent) => {
    const result = await chat.chat(ask(model, asked as Partial<ChatRequest>), conn());
    const body = lastBody();
    expect({ thinking: body.thinking, ...(body.output_config ? { output_config: body.output_config } : {}) }).toEqual(sent);
    if ((sent.thinking as { type: string }).type !== 'disabled')
      expect(result.reasoning?.[0]).toMatchObject({ type: 'text', provider: 'anthropic' });
  });

  test('reasoning effort none sends no thinking', async () => {
    await chat.chat(ask('claude-sonnet-4-6', { reasoningEffort: 'none' }), conn());
    expect(lastBody()).not.toHaveProperty('thinking');
  });
});

describe('signed reasoning round-trips unchanged', () => {
  test('a tool loop: the thinking and redacted blocks come back as reasoning and go forward first in the turn', async () => {
    const asked: ChatMessage = { role: 'user', content: `${REDACTED_THINKING_TRIGGER} weather in Paris?` };
    const first = await chat.chat(ask('claude-haiku-4-5', { messages: [asked], tools, reasoningEffort: 'low' }), conn());
    expect(first.finishReason).toBe('tool_calls');
    expect(first.reasoning!.map((r) => r.type)).toEqual(['redacted', 'text']);
    const [redacted, thought] = first.reasoning! as [
      Extract<ChatReasoning, { type: 'redacted' }>,
      Extract<ChatReasoning, { type: 'text' }>,
    ];
    expect(thought.signature).toBeTruthy();
    const turn: ChatMessage = { role: 'assistant', content: first.text, reasoning: first.reasoning, toolCalls: first.toolCalls };
    const messages: ChatMessage[] = [asked, turn, { role: 'tool', toolCallId: first.toolCalls![0].id, content: '18C' }];
    const second = await chat.chat(ask('claude-haiku-4-5', { messages, tools, reasoningEffort: 'low' }), conn());
    expect(second.finishReason).toBe('stop');
    const sent = (lastBody().messages as Array<{ content: unknown[] }>)[1].content;
    expect(sent.slice(0, 2)).toEqual([
      { type: 'redacted_thinking', data: redacted.data },
      { type: 'thinking', thinking: thought.text, signature: thought.signature },
    ]);
  });

  test('streamed: reasoning deltas, then the whole block with its signature, before the answer', async () => {
    const events = await collect(chat.chatStream(ask('claude-haiku-4-5', { reasoningEffort: 'low' }), conn()));
    const types = events.map((e) => e.type);
    expect(types.indexOf('reasoning_delta')).toBeLessThan(types.indexOf('reasoning'));
    expect(types.indexOf('reasoning')).toBeLessThan(types.indexOf('delta'));
    const block = events.find((e) => e.type === 'reasoning');
    const text = events.flatMap((e) => (e.type === 'reasoning_delta' ? [e.text] : [])).join('');
    expect(block).toEqual({ type: 'reasoning', reasoning: { type: 'text', provider: 'anthropic', text, signature: expect.any(String) } });
    const usage = events.find((e) => e.type === 'usage');
    expect(usage).toMatchObject({ usage: { reasoningTokens: Math.ceil(text.length / 4) } });
  });

  test('unsigned thinking and other vendors’ state are not sent to Anthropic', async () => {
    const messages: ChatMessage[] = [
      question,
      {
        role: 'assistant',
        content: 'It is sunny.',
        reasoning: [
          { type: 'text', provider: 'anthropic', text: 'unsigned' },
          { type: 'encrypted', provider: 'anthropic', data: 'x' },
        ],
      },
      { role: 'user', content: 'And tomorrow?' },
    ];
    await chat.chat(ask('claude-haiku-4-5', { messages }), conn());
    expect((lastBody().messages as Array<{ content: unknown[] }>)[1].content).toEqual([{ type: 'text', text: 'It is sunny.' }]);
  });
});

describe('prompt caching', () => {
  const manual = 'cached reference manual '.repeat(700);

  test('cache marks become cache_control on system blocks, tools and tool results; usage counts reads and writes', async () => {
    const messages: ChatMessage[] = [
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Be brief.' },
          { type: 'text', text: manual, cache: { ttl: '1h' } },
        ],
      },
      question,
    ];
    const cachedTools = [{ ...tools[0], cache: {} }];
    const first = await chat.chat(ask('claude-sonnet-4-6', { messages, tools: cachedTools, toolChoice: 'none' }), conn());
    const body = lastBody();
    expect(body.system).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: manual, cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    expect((body.tools as unknown[])[0]).toMatchObject({ name: 'get_weather', cache_control: { type: 'ephemeral' } });
    expect(first.usage.cacheWriteTokens).toBeGreaterThan(2048);
    expect(first.usage.cachedTokens).toBeUndefined();
    const second = await chat.chat(ask('claude-sonnet-4-6', { messages, tools: cachedTools, toolChoice: 'none' }), conn());
    expect(second.usage.cachedTokens).toBe(first.usage.cacheWriteTokens);
    expect(second.usage.promptTokens).toBe(first.usage.promptTokens);

    const events = await collect(chat.chatStream(ask('claude-sonnet-4-6', { messages, tools: cachedTools, toolChoice: 'none' }), conn()));
    expect(events.find((e) => e.type === 'usage')).toMatchObject({ usage: { cachedTokens: first.usage.cacheWriteTokens } });

    await chat.chat(
      ask('claude-sonnet-4-6', {
        messages: [
          question,
          { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{}', cache: {} }] },
          { role: 'tool', toolCallId: 'toolu_1', content: [{ type: 'text', text: '18C', cache: {} }] },
        ],
        tools,
      }),
      conn(),
    );
    const [, assistant, result] = lastBody().messages as Array<{ content: Array<Record<string, unknown>> }>;
    expect(assistant.content[0]).toMatchObject({ type: 'tool_use', cache_control: { type: 'ephemeral' } });
    expect(result.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: '18C',
      cache_control: { type: 'ephemeral' },
    });
  });
});
