import Anthropic from '@anthropic-ai/sdk';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import { SandboxServer, startSandbox } from '../../src/sandbox/server';

// The Anthropic fake's tool use and vision, driven by the official @anthropic-ai/sdk.

let sandbox: SandboxServer;
let client: Anthropic;
beforeAll(async () => {
  sandbox = await startSandbox(sandboxHandlers);
  client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: sandbox.mountUrl('anthropic'), maxRetries: 0 });
});
afterAll(() => sandbox.close());

const model = 'claude-haiku-4-5';
const weather: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

test('tool_use, then tool_result, then an answer using it', async () => {
  const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Tallinn?' };
  const first = await client.messages.create({ model, max_tokens: 200, messages: [question], tools: [weather] });
  expect(first.stop_reason).toBe('tool_use');
  const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
  expect(use).toMatchObject({ name: 'get_weather', input: { city: expect.any(String) }, id: expect.stringMatching(/^toolu_/) });
  const second = await client.messages.create({
    model,
    max_tokens: 200,
    tools: [weather],
    messages: [
      question,
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'fog, 4 C' }] },
    ],
  });
  expect(second.stop_reason).toBe('end_turn');
  expect((second.content[0] as Anthropic.TextBlock).text).toMatch(/fog/);
});

test('streamed: the SDK accumulates input_json_delta into the tool input', async () => {
  const stream = client.messages.stream({
    model,
    max_tokens: 200,
    messages: [{ role: 'user', content: 'Weather in Vilnius?' }],
    tools: [weather],
  });
  const fragments: string[] = [];
  stream.on('inputJson', (partial) => fragments.push(partial));
  const final = await stream.finalMessage();
  expect(final.stop_reason).toBe('tool_use');
  expect(fragments.length).toBeGreaterThan(1);
  const use = final.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
  expect(use.input).toEqual({ city: expect.any(String) });
});

test('tool_choice tool forces the named tool; a tool_result without its tool_use is refused', async () => {
  const clock: Anthropic.Tool = { name: 'get_time', input_schema: { type: 'object', properties: {} } };
  const forced = await client.messages.create({
    model,
    max_tokens: 100,
    messages: [{ role: 'user', content: 'hello' }],
    tools: [weather, clock],
    tool_choice: { type: 'tool', name: 'get_time' },
  });
  expect(forced.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'get_time' });
  const orphan = await client.messages
    .create({
      model,
      max_tokens: 100,
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'x' }] }],
    })
    .catch((e) => e);
  expect(orphan).toBeInstanceOf(Anthropic.BadRequestError);
});

test('a forced tool (tool_choice any or tool) is called at once, without a text block, created and streamed', async () => {
  for (const tool_choice of [{ type: 'any' }, { type: 'tool', name: 'get_weather' }] as Anthropic.ToolChoice[]) {
    const created = await client.messages.create({
      model,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weather],
      tool_choice,
    });
    expect([tool_choice.type, created.content.map((b) => b.type), created.stop_reason]).toEqual([
      tool_choice.type,
      ['tool_use'],
      'tool_use',
    ]);
    const stream = client.messages.stream({
      model,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weather],
      tool_choice,
    });
    const starts: [number, string][] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_start') starts.push([event.index, event.content_block.type]);
    });
    const final = await stream.finalMessage();
    expect(starts).toEqual([[0, 'tool_use']]);
    expect(final.content).toEqual([
      expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: expect.any(String) } }),
    ]);
  }
  // With tool_choice auto Claude usually says a few words first: a text block, then the tool_use block.
  const auto = await client.messages.create({
    model,
    max_tokens: 100,
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools: [weather],
  });
  expect(auto.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
});

test('an image block is seen', async () => {
  const res = await client.messages.create({
    model,
    max_tokens: 100,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'text', text: 'What is it?' },
        ],
      },
    ],
  });
  expect((res.content[0] as Anthropic.TextBlock).text).toMatch(/1 image/);
});
