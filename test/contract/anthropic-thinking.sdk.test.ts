import Anthropic from '@anthropic-ai/sdk';
import { createAnthropicSandbox } from '../../src/sandbox/anthropic';
import { REDACTED_THINKING_TRIGGER } from '../../src/sandbox/anthropic-thinking';
import { useFake } from './sandbox';

// The official `@anthropic-ai/sdk` against the fake's extended thinking, as Anthropic documents it: signed thinking
// blocks (streamed as thinking_delta then signature_delta), redacted thinking, which models take a budget, adaptive
// thinking and an effort, and the replay rules of a tool loop (a thinking block comes back unchanged and first).

const fake = useFake('anthropic', createAnthropicSandbox({ streamDelayMs: 0 }));
const client = () => new Anthropic({ apiKey: 'sk-ant-contract', baseURL: fake.mount(), maxRetries: 0 });

const weather: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const question: Anthropic.MessageParam = { role: 'user', content: 'What is the weather in Paris?' };
const budget = { type: 'enabled', budget_tokens: 2048 } as const;

async function refusal(params: object): Promise<string> {
  const err = (await client()
    .messages.create(params as unknown as Anthropic.MessageCreateParamsNonStreaming)
    .catch((e: unknown) => e)) as InstanceType<typeof Anthropic.BadRequestError>;
  expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  return (err.error as { error: { message: string } }).error.message;
}

/** A first turn that thinks, then calls the tool; and the tool result that answers it. */
async function toolTurn(model: string, thinking: Anthropic.ThinkingConfigParam, extra: Record<string, unknown> = {}) {
  const first = await client().messages.create({ model, max_tokens: 8000, thinking, tools: [weather], messages: [question], ...extra });
  expect(first.stop_reason).toBe('tool_use');
  const use = first.content.find((b) => b.type === 'tool_use')!;
  const result: Anthropic.MessageParam = {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: use.type === 'tool_use' ? use.id : '', content: '18C, sunny' }],
  };
  return { first, result };
}

test('a tool turn starts with a signed thinking block; replayed unchanged, the loop goes on and thinks again', async () => {
  const { first, result } = await toolTurn('claude-haiku-4-5', budget);
  expect(first.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
  const thought = first.content[0] as Anthropic.ThinkingBlock;
  expect(thought.signature.length).toBeGreaterThan(20);
  const second = await client().messages.create({
    model: 'claude-haiku-4-5',
    max_tokens: 8000,
    thinking: budget,
    tools: [weather],
    messages: [question, { role: 'assistant', content: first.content }, result],
  });
  expect(second.content.map((b) => b.type)).toEqual(['thinking', 'text']);
  expect((second.content[1] as Anthropic.TextBlock).text).toMatch(/18C, sunny/);
});

test('a modified or unsigned thinking block, or a tool loop whose thinking was dropped, is refused as Anthropic refuses it', async () => {
  const { first, result } = await toolTurn('claude-haiku-4-5', budget);
  const thought = first.content[0] as Anthropic.ThinkingBlock;
  const rest = first.content.slice(1);
  const replay = (assistant: unknown[]) => ({
    model: 'claude-haiku-4-5',
    max_tokens: 8000,
    thinking: budget,
    tools: [weather],
    messages: [question, { role: 'assistant', content: assistant }, result],
  });
  expect(await refusal(replay([{ ...thought, thinking: `${thought.thinking} (edited)` }, ...rest]))).toBe(
    'messages.1.content.0: Invalid `signature` in `thinking` block',
  );
  expect(await refusal(replay([{ ...thought, signature: '' }, ...rest]))).toMatch(/signature/);
  expect(await refusal(replay(rest))).toMatch(
    /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `text`/,
  );
});

test('adaptive thinking: a turn that thought must keep its thinking in the loop too', async () => {
  const { first, result } = await toolTurn('claude-sonnet-4-6', { type: 'adaptive' });
  const replay = (assistant: unknown[]) => ({
    model: 'claude-sonnet-4-6',
    max_tokens: 8000,
    thinking: { type: 'adaptive' },
    tools: [weather],
    messages: [question, { role: 'assistant', content: assistant }, result],
  });
  expect(await refusal(replay(first.content.slice(1)))).toMatch(/Expected `thinking` or `redacted_thinking`/);
  const ok = await client().messages.create(replay(first.content) as Anthropic.MessageCreateParamsNonStreaming);
  expect(ok.stop_reason).toBe('end_turn');
});

test('redacted thinking on the documented test string: opaque data that replays unchanged, refused when altered', async () => {
  const ask: Anthropic.MessageParam = { role: 'user', content: `${REDACTED_THINKING_TRIGGER} What is the weather in Paris?` };
  const first = await client().messages.create({
    model: 'claude-haiku-4-5',
    max_tokens: 8000,
    thinking: budget,
    tools: [weather],
    messages: [ask],
  });
  expect(first.content.map((b) => b.type)).toEqual(['redacted_thinking', 'thinking', 'text', 'tool_use']);
  const use = first.content[3] as Anthropic.ToolUseBlock;
  const result: Anthropic.MessageParam = { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'rain' }] };
  const params = (assistant: unknown[]) =>
    ({
      model: 'claude-haiku-4-5',
      max_tokens: 8000,
      thinking: budget,
      tools: [weather],
      messages: [ask, { role: 'assistant', content: assistant }, result],
    }) as Anthropic.MessageCreateParamsNonStreaming;
  expect((await client().messages.create(params(first.content))).stop_reason).toBe('end_turn');
  const redacted = first.content[0] as Anthropic.RedactedThinkingBlock;
  const altered = Buffer.from(redacted.data, 'base64');
  altered[altered.length - 1] ^= 1;
  expect(await refusal(params([{ ...redacted, data: altered.toString('base64') }, ...first.content.slice(1)]))).toMatch(
    /Invalid `data` in `redacted_thinking` block/,
  );
});

test('streaming: thinking_delta events, then signature_delta; the SDK assembles the signed block', async () => {
  const types: string[] = [];
  const stream = client().messages.stream({ model: 'claude-haiku-4-5', max_tokens: 8000, thinking: budget, messages: [question] });
  stream.on('streamEvent', (ev) => {
    if (ev.type === 'content_block_delta') types.push(ev.delta.type);
  });
  const final = await stream.finalMessage();
  expect(types.filter((t) => t === 'signature_delta')).toHaveLength(1);
  expect(types.indexOf('signature_delta')).toBe(types.lastIndexOf('thinking_delta') + 1);
  const thought = final.content[0] as Anthropic.ThinkingBlock;
  expect(thought.thinking).toMatch(/Sandbox thinking/);
  // The streamed block is as valid as a whole one: it replays.
  const again = await client().messages.create({
    model: 'claude-haiku-4-5',
    max_tokens: 8000,
    thinking: budget,
    messages: [question, { role: 'assistant', content: final.content }, { role: 'user', content: 'And tomorrow?' }],
  });
  expect(again.stop_reason).toBe('end_turn');
});

test('each model takes its thinking modes and efforts; more effort thinks longer', async () => {
  const base = { max_tokens: 8000, messages: [question] };
  expect(await refusal({ ...base, model: 'claude-opus-4-8', thinking: budget })).toMatch(/thinking\.type\.enabled is not supported/);
  expect(await refusal({ ...base, model: 'claude-haiku-4-5', thinking: { type: 'adaptive' } })).toMatch(/adaptive is not supported/);
  expect(await refusal({ ...base, model: 'claude-haiku-4-5', output_config: { effort: 'high' } })).toMatch(/does not support the effort/);
  expect(await refusal({ ...base, model: 'claude-sonnet-4-6', thinking: { type: 'adaptive', budget_tokens: 2048 } })).toMatch(
    /thinking\.adaptive\.budget_tokens: Extra inputs/,
  );
  expect(await refusal({ ...base, model: 'claude-sonnet-4-6', output_config: { effort: 'xhigh' } })).toMatch(/output_config\.effort/);
  const think = async (effort: string) => {
    const m = await client().messages.create({
      ...base,
      model: 'claude-opus-4-8',
      thinking: { type: 'adaptive' },
      output_config: { effort },
    } as Anthropic.MessageCreateParamsNonStreaming);
    return (m.content[0] as Anthropic.ThinkingBlock).thinking.length;
  };
  expect(await think('max')).toBeGreaterThan(await think('low'));
});
