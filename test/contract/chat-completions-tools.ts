import OpenAI from 'openai';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import { SandboxServer, startSandbox } from '../../src/sandbox/server';

// The tool and vision behaviour of a Chat Completions fake (OpenAI, xAI, DeepSeek), driven by the official
// `openai` SDK as a client of the fake itself.

const weather: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

export function describeChatCompletionsTools(
  vendor: 'openai' | 'xai' | 'deepseek',
  basePath: string,
  model: string,
  opts: { vision: boolean },
): void {
  let sandbox: SandboxServer;
  let client: OpenAI;
  beforeAll(async () => {
    sandbox = await startSandbox(sandboxHandlers);
    client = new OpenAI({ apiKey: 'sk-test', baseURL: `${sandbox.mountUrl(vendor)}${basePath}`, maxRetries: 0 });
  });
  afterAll(() => sandbox.close());

  test('a tool call, then an answer that uses the tool result', async () => {
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'Weather in Kyiv?' };
    const first = await client.chat.completions.create({ model, messages: [question], tools: [weather] });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(first.choices[0].message.content).toBeNull();
    const call = first.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(JSON.parse(call.function.arguments)).toEqual({ city: expect.any(String) });
    expect(first.usage!.completion_tokens).toBeGreaterThan(0);
    const second = await client.chat.completions.create({
      model,
      tools: [weather],
      messages: [question, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'snow, -3 C' }],
    });
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(second.choices[0].message.content).toMatch(/snow/);
  });

  test('streamed tool calls assemble in the SDK stream helper', async () => {
    const stream = client.chat.completions.stream({ model, messages: [{ role: 'user', content: 'Weather in Riga?' }], tools: [weather] });
    const done = await stream.finalChatCompletion();
    expect(done.choices[0].finish_reason).toBe('tool_calls');
    const call = done.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: expect.any(String) });
  });

  test('tool_choice none answers in text; an orphan tool message is refused', async () => {
    const none = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [weather],
      tool_choice: 'none',
    });
    expect(none.choices[0].message.tool_calls ?? []).toEqual([]);
    const orphan = await client.chat.completions
      .create({
        model,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'tool', tool_call_id: 'call_x', content: 'x' },
        ],
      })
      .catch((e) => e);
    expect(orphan).toBeInstanceOf(OpenAI.BadRequestError);
  });

  if (opts.vision) {
    test('an image part is seen', async () => {
      const res = await client.chat.completions.create({
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            ],
          },
        ],
      });
      expect(res.choices[0].message.content).toMatch(/1 image/);
    });
  }
}
