import { ChatOpenAI } from '@langchain/openai';
import { HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { ApiHarness, startApi } from '../api/harness';
import { textModel, weatherTool } from './models';

// LangChain's ChatOpenAI drives /v1 unchanged: it sends system prompts as `developer` to reasoning models.

let api: ApiHarness;
let apiKey: string;
beforeAll(async () => {
  api = await startApi();
  apiKey = await api.apiKey(await api.account('vip', { planTokens: 500 }));
});
afterAll(() => api.close());

/** The bodies LangChain sent, to show what it puts on the wire. */
const sent: Array<{ messages: Array<{ role: string }> }> = [];
const recordingFetch: typeof fetch = async (input, init) => {
  if (typeof init?.body === 'string') sent.push(JSON.parse(init.body));
  return fetch(input, init);
};

function chat(model: string): ChatOpenAI {
  return new ChatOpenAI({ model, apiKey, configuration: { baseURL: `${api.baseUrl}/v1`, fetch: recordingFetch }, maxRetries: 0 });
}

test('invoke on gpt-5.6-terra with a system prompt (sent as developer)', async () => {
  const reply = await chat('gpt-5.6-terra').invoke([new SystemMessage('You are terse.'), new HumanMessage('Name three rivers')]);
  expect(sent[sent.length - 1].messages[0].role).toBe('developer');
  expect(String(reply.content)).toMatch(/Name three rivers/);
  expect(reply.usage_metadata?.output_tokens).toBeGreaterThan(0);
});

test('stream on gpt-5.6-terra', async () => {
  const pieces: string[] = [];
  for await (const chunk of await chat('gpt-5.6-terra').stream([new SystemMessage('Be brief.'), new HumanMessage('Describe the sea')])) {
    pieces.push(String(chunk.content));
  }
  expect(pieces.filter(Boolean).length).toBeGreaterThan(2);
  expect(pieces.join('')).toMatch(/Describe the sea/);
});

test('bindTools on a Claude model returns tool_calls, and the tool result round-trips', async () => {
  const model = chat(textModel('anthropic').slug).bindTools([weatherTool]);
  const question = new HumanMessage('What is the weather in Lisbon?');
  const first = await model.invoke([question]);
  expect(first.tool_calls).toHaveLength(1);
  expect(first.tool_calls![0]).toMatchObject({ name: 'get_weather', args: { city: expect.any(String) }, id: expect.any(String) });
  const second = await model.invoke([question, first, new ToolMessage({ tool_call_id: first.tool_calls![0].id!, content: 'sunny, 24 C' })]);
  expect(second.tool_calls ?? []).toHaveLength(0);
  expect(String(second.content)).toMatch(/sunny/);
});

test('bindTools on a Claude model, streamed: the tool call chunks add up', async () => {
  const model = chat(textModel('anthropic').slug).bindTools([weatherTool]);
  let gathered: Awaited<ReturnType<typeof model.invoke>> | undefined;
  for await (const chunk of await model.stream([new HumanMessage('Weather in Madrid?')])) {
    gathered = gathered ? (gathered.concat(chunk) as typeof gathered) : chunk;
  }
  expect(gathered!.tool_calls).toHaveLength(1);
  expect(gathered!.tool_calls![0]).toMatchObject({ name: 'get_weather', args: { city: expect.any(String) } });
});
