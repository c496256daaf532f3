import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createDeepSeekSandbox } from '../../src/sandbox/deepseek';
import { createGoogleSandbox } from '../../src/sandbox/google';
import { ApiHarness, startApi } from '../api/harness';
import { recording } from './recording';

// DeepSeek and Gemini tool loops keep thinking on through every surface: DeepSeek's reasoning_content and Gemini's
// real thought signatures leave in each surface's shape (reasoning_content/reasoning_details, a Messages thinking
// block sealed by the service, a Responses reasoning item's encrypted_content) and come back to the vendor as it
// produced them when the client replays the turn. The fakes refuse a loop whose state was lost.

const deepseek = recording(createDeepSeekSandbox({ chunkDelayMs: 0 }));
const google = recording(createGoogleSandbox({ streamDelayMs: 0 }));
let api: ApiHarness;
beforeAll(async () => {
  api = await startApi(undefined, { handlers: { deepseek: deepseek.handler, google: google.handler } });
});
afterAll(() => api.close());

const key = async () => api.apiKey(await api.account('vip', { planTokens: 5000, bonusTokens: 0 }));
type Sent = {
  messages?: Array<Record<string, unknown>>;
  contents?: Array<{ role: string; parts: Array<Record<string, unknown>> }>;
} & Record<string, unknown>;
const last = (fake: { bodies: Array<Record<string, unknown>> }) => fake.bodies[fake.bodies.length - 1] as Sent;

const chatTools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
];
const messagesTool: Anthropic.Tool = { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
const responsesTools: OpenAI.Responses.Tool[] = [
  { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false },
];

describe.each([
  ['deepseek-v4-pro', deepseek],
  ['gemini-3.5-flash', google],
] as const)('%s', (model, fake) => {
  /** What proves the vendor got its state back: DeepSeek's reasoning_content, Gemini's issued signature. */
  function expectStateBack(): void {
    const sent = last(fake);
    if (sent.messages) {
      expect(sent.thinking).not.toEqual({ type: 'disabled' });
      expect(sent.messages[1].reasoning_content).toMatch(/Sandbox reasoning/);
    } else {
      const call = sent.contents![1].parts.find((p) => p.functionCall);
      expect(call!.thoughtSignature).not.toBe('skip_thought_signature_validator');
      expect(String(call!.thoughtSignature).length).toBeGreaterThan(20);
    }
  }

  test('chat completions: the SDK message replayed as it came', async () => {
    const openai = new OpenAI({ apiKey: await key(), baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.chat.completions.create({ model, messages, tools: chatTools, reasoning_effort: 'high' });
    const message = first.choices[0].message;
    expect((message as { reasoning_details?: unknown[] }).reasoning_details?.length).toBeGreaterThan(0);
    const second = await openai.chat.completions.create({
      model,
      messages: [...messages, message, { role: 'tool', tool_call_id: message.tool_calls![0].id, content: '18C' }],
      tools: chatTools,
      reasoning_effort: 'high',
    });
    expect(second.choices[0].finish_reason).toBe('stop');
    expectStateBack();
  });

  test('messages: the sealed thinking blocks replayed by the Anthropic SDK', async () => {
    const anthropic = new Anthropic({ apiKey: await key(), baseURL: api.baseUrl, maxRetries: 0 });
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const params = { model, max_tokens: 4000, tools: [messagesTool], thinking: { type: 'enabled' as const, budget_tokens: 2048 } };
    const first = await anthropic.messages.create({ ...params, messages: [question] });
    const blocks = first.content.filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
    expect(blocks.length).toBeGreaterThan(0);
    for (const b of blocks) expect(b.type === 'thinking' ? b.signature : b.data).toMatch(/^nbr1\./);
    const use = first.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
    const second = await anthropic.messages.create({
      ...params,
      messages: [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18C' }] },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expectStateBack();
  });

  test('messages, streamed: thinking_delta then the sealed signature_delta; the assembled blocks replay', async () => {
    const anthropic = new Anthropic({ apiKey: await key(), baseURL: api.baseUrl, maxRetries: 0 });
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const params = { model, max_tokens: 4000, tools: [messagesTool], thinking: { type: 'enabled' as const, budget_tokens: 2048 } };
    const deltas: string[] = [];
    const stream = anthropic.messages.stream({ ...params, messages: [question] });
    stream.on('streamEvent', (ev) => {
      if (ev.type === 'content_block_delta') deltas.push(ev.delta.type);
    });
    const first = await stream.finalMessage();
    expect(deltas).toContain('signature_delta');
    const use = first.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
    const second = await anthropic.messages.create({
      ...params,
      messages: [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18C' }] },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expectStateBack();
  });

  test('responses: reasoning items with encrypted_content replayed', async () => {
    const openai = new OpenAI({ apiKey: await key(), baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Paris?' }];
    const params = {
      model,
      tools: responsesTools,
      reasoning: { effort: 'high' as const },
      include: ['reasoning.encrypted_content' as const],
      store: false,
    };
    const first = await openai.responses.create({ ...params, input });
    const item = first.output.find((o) => o.type === 'reasoning') as OpenAI.Responses.ResponseReasoningItem;
    expect(item.encrypted_content).toMatch(/^nbr1\./);
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await openai.responses.create({
      ...params,
      input: [
        ...input,
        ...first.output,
        { type: 'function_call_output', call_id: call.call_id, output: '18C' },
      ] as OpenAI.Responses.ResponseInput,
    });
    expect(second.status).toBe('completed');
    expectStateBack();
  });
});
