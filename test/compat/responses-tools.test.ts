import OpenAI from 'openai';
import { requireModel } from '../../src/core/catalog/catalog';
import { priceChatUsage } from '../../src/core/catalog/pricing';
import { GenerationEntity } from '../../src/db/entities';
import { ApiHarness, startApi } from '../api/harness';

// Issue 35, what Codex CLI sends on /v1/responses, with the official SDK: custom (free-form) tools, namespace tools
// and `additional_tools` items on every vendor (Claude and Gemini get plain functions and the calls come back in the
// client's shape), the hosted web search where the vendor runs it (priced per search) and named as ignored
// elsewhere, and labels such as client_metadata accepted.

let api: ApiHarness;
let key: string;
beforeAll(async () => {
  api = await startApi();
  key = await api.apiKey(await api.account('vip', { planTokens: 50_000 }));
});
afterAll(() => api.close());

const openai = () => new OpenAI({ apiKey: key, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
type Params = OpenAI.Responses.ResponseCreateParamsNonStreaming;

const namespaceTool = {
  type: 'namespace',
  name: 'crm',
  description: 'The CRM',
  tools: [
    { type: 'function', name: 'find_account', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
  ],
};

describe.each(['claude-haiku-4-5', 'gemini-3.5-flash', 'gpt-6-luna'])('%s', (model) => {
  test('a namespace tool is called with its namespace; the loop completes', async () => {
    const first = await openai().responses.create({ model, input: 'Find the ACME account', tools: [namespaceTool] } as unknown as Params);
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall & { namespace?: string };
    expect(call).toMatchObject({ name: 'find_account', namespace: 'crm' });
    const second = await openai().responses.create({
      model,
      tools: [namespaceTool],
      input: [
        { role: 'user', content: 'Find the ACME account' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: 'ACME Corp, id 7' },
      ],
    } as unknown as Params);
    expect(second.output_text).toMatch(/find_account returned .*ACME Corp/);
  });

  test('a custom tool takes free-form input, streamed as custom_tool_call_input deltas; additional_tools offer it too', async () => {
    const stream = openai().responses.stream({
      model,
      input: [
        {
          type: 'additional_tools',
          role: 'developer',
          tools: [
            { type: 'namespace', name: 'functions', description: '', tools: [{ type: 'custom', name: 'exec', format: { type: 'text' } }] },
          ],
        },
        { role: 'user', content: 'print(40 + 2)' },
      ],
    } as never);
    let input = '';
    for await (const ev of stream as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) {
      if (ev.type === 'response.custom_tool_call_input.delta') input += ev.delta;
    }
    const final = await (stream as unknown as { finalResponse(): Promise<OpenAI.Responses.Response> }).finalResponse();
    const call = final.output.find((o) => o.type === 'custom_tool_call') as OpenAI.Responses.ResponseCustomToolCall & {
      namespace?: string;
    };
    expect(call).toMatchObject({ name: 'exec', namespace: 'functions', input: 'print(40 + 2)' });
    expect(input).toBe('print(40 + 2)');
    const after = await openai().responses.create({
      model,
      tools: [{ type: 'custom', name: 'exec' }],
      input: [
        { role: 'user', content: 'print(40 + 2)' },
        call as unknown as OpenAI.Responses.ResponseInputItem,
        { type: 'custom_tool_call_output', call_id: call.call_id, output: '42' },
      ],
    });
    expect(after.output_text).toMatch(/exec returned .*42/);
  });
});

test('the hosted web search runs on OpenAI: a web_search_call, its events, charged per search', async () => {
  const acc = await api.account('vip', { planTokens: 5000 });
  const client = new OpenAI({ apiKey: await api.apiKey(acc), baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
  const res = await client.responses.create({
    model: 'gpt-6-luna',
    input: 'Search the latest otter news',
    tools: [{ type: 'web_search' }],
  });
  expect(res.output.map((o) => o.type)).toEqual(['reasoning', 'web_search_call', 'message']);
  expect(res.output[1]).toMatchObject({ status: 'completed', action: { type: 'search' } });
  const generation = await api.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ userId: acc.user.id });
  const usage = {
    promptTokens: res.usage!.input_tokens,
    completionTokens: res.usage!.output_tokens,
    cachedTokens: res.usage!.input_tokens_details.cached_tokens,
  };
  const withoutSearch = priceChatUsage(requireModel('gpt-6-luna'), usage);
  expect(generation.tokensSpent).toBe(priceChatUsage(requireModel('gpt-6-luna'), { ...usage, toolUses: { web_search: 1 } }));
  expect(generation.tokensSpent).toBeGreaterThan(withoutSearch);

  const stream = client.responses.stream({ model: 'gpt-6-luna', input: 'search otters', tools: [{ type: 'web_search' }] });
  const types: string[] = [];
  for await (const ev of stream) types.push(ev.type);
  expect(types).toEqual(
    expect.arrayContaining([
      'response.web_search_call.in_progress',
      'response.web_search_call.searching',
      'response.web_search_call.completed',
    ]),
  );
});

test('hosted tools a vendor does not run, and labels: accepted, named in X-Ignored-Parameters', async () => {
  const { response, data } = await openai()
    .responses.create({
      model: 'gemini-3.5-flash',
      input: 'hello',
      tools: [{ type: 'web_search', external_web_access: false } as never, { type: 'file_search', vector_store_ids: ['vs_1'] }],
      client_metadata: { session_id: 's1' },
      text: { verbosity: 'low' },
      include: ['reasoning.encrypted_content'],
      store: false,
      prompt_cache_key: 'k',
    } as unknown as Params)
    .withResponse();
  expect(data.status).toBe('completed');
  expect(response.headers.get('x-ignored-parameters')).toBe(
    'prompt_cache_key, text.verbosity, tools.web_search, tools.file_search, client_metadata',
  );
});
