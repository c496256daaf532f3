import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { ApiHarness, startApi } from '../api/harness';
import { textModel } from './models';

// The Vercel AI SDK with its OpenAI-compatible provider drives /v1 unchanged.

let api: ApiHarness;
let apiKey: string;
beforeAll(async () => {
  api = await startApi();
  apiKey = await api.apiKey(await api.account('vip', { planTokens: 500 }));
});
afterAll(() => api.close());

function provider() {
  return createOpenAICompatible({ name: 'nebula', baseURL: `${api.baseUrl}/v1`, apiKey, includeUsage: true });
}

const executed: string[] = [];
const weather = tool({
  description: 'Current weather for a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    executed.push(city);
    return { city, sky: 'overcast', temp_c: 14 };
  },
});

test.each(['openai', 'anthropic', 'google'] as const)(
  'generateText on a %s model: the tool runs in step one, the answer uses it in step two',
  async (vendor) => {
    executed.length = 0;
    const result = await generateText({
      model: provider()(textModel(vendor).slug),
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
      prompt: 'What is the weather in Berlin?',
    });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0].finishReason).toBe('tool-calls');
    expect(result.steps[0].toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { city: expect.any(String) } });
    expect(executed).toHaveLength(1);
    expect(result.steps[1].finishReason).toBe('stop');
    expect(result.text).toMatch(/overcast/);
    expect(result.totalUsage.outputTokens).toBeGreaterThan(0);
  },
);

test('streamText with a tool, two steps', async () => {
  executed.length = 0;
  const result = streamText({
    model: provider()(textModel('google').slug),
    tools: { get_weather: weather },
    stopWhen: stepCountIs(3),
    prompt: 'Weather in Vienna?',
  });
  let text = '';
  for await (const piece of result.textStream) text += piece;
  expect(executed).toHaveLength(1);
  expect(text).toMatch(/overcast/);
  expect((await result.steps).length).toBe(2);
});
