import OpenAI from 'openai';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { eventually, waitUntil } from '../support/wait';
import { useFake } from './sandbox';

// The official `openai` SDK as the client of the OpenAI fake's Responses API (issue 35): stored responses and
// their reads, previous_response_id, background runs and cancel, function, custom and namespace tools (also from
// `additional_tools` items), the hosted web search, reasoning items with encrypted content, and the stream's events.

const fake = useFake('openai', createOpenAiSandbox({ chunkDelayMs: 0, now: () => new Date('2026-11-27T12:00:00Z') }));
const client = () => new OpenAI({ apiKey: 'sk-contract', baseURL: `${fake.mount()}/v1`, maxRetries: 0 });

async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

const weather: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

describe('stored responses', () => {
  test('stored by default: retrieved, its input items listed (newest first, paged), deleted', async () => {
    const created = await client().responses.create({
      model: 'gpt-4o',
      input: [
        { role: 'user', content: 'First question' },
        { role: 'user', content: 'Second question' },
        { role: 'user', content: 'Third question' },
      ],
    });
    expect(created).toMatchObject({ object: 'response', status: 'completed', store: true, background: false });
    expect(await client().responses.retrieve(created.id)).toEqual(created);

    const desc = await client().responses.inputItems.list(created.id);
    expect(desc.data.map((i) => (i as OpenAI.Responses.ResponseInputMessageItem).content[0])).toEqual([
      { type: 'input_text', text: 'Third question' },
      { type: 'input_text', text: 'Second question' },
      { type: 'input_text', text: 'First question' },
    ]);
    const first = await client().responses.inputItems.list(created.id, { order: 'asc', limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const rest = await client().responses.inputItems.list(created.id, { order: 'asc', limit: 2, after: first.data[1].id });
    expect(rest.data.map((i) => i.id)).toEqual([desc.data[0].id]);
    expect(rest.has_more).toBe(false);

    // The SDK types the answer as void; the API answers with the deleted object.
    expect(await client().responses.delete(created.id)).toEqual({ id: created.id, object: 'response', deleted: true });
    const gone = await refusal(client().responses.retrieve(created.id));
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect(gone.message).toContain(`Response with id '${created.id}' not found.`);
  });

  test('previous_response_id continues the stored conversation; its input items hold the whole context', async () => {
    const first = await client().responses.create({ model: 'gpt-4o', input: 'My name is Ada' });
    const second = await client().responses.create({ model: 'gpt-4o', previous_response_id: first.id, input: 'What is my name?' });
    expect(second.previous_response_id).toBe(first.id);
    const items = await client().responses.inputItems.list(second.id, { order: 'asc' });
    expect(items.data.map((i) => i.type)).toEqual(['message', 'message', 'message']);
    expect(items.data[1].id).toBe(first.output[0].id);
    const missing = await refusal(client().responses.create({ model: 'gpt-4o', previous_response_id: 'resp_nope', input: 'x' }));
    expect(missing.param).toBe('previous_response_id');
  });

  test('store: false is not kept: neither read back nor continued', async () => {
    const unstored = await client().responses.create({ model: 'gpt-4o', input: 'keep nothing', store: false });
    expect((unstored as unknown as { store: boolean }).store).toBe(false);
    expect(await refusal(client().responses.retrieve(unstored.id))).toBeInstanceOf(OpenAI.NotFoundError);
    expect((await refusal(client().responses.create({ model: 'gpt-4o', previous_response_id: unstored.id, input: 'x' }))).status).toBe(400);
  });

  test('an item_reference resolves to a stored item; a duplicate of the chain is refused', async () => {
    const first = await client().responses.create({ model: 'gpt-4o', input: 'Remember this' });
    const ref = await client().responses.create({
      model: 'gpt-4o',
      input: [
        { type: 'item_reference', id: first.output[0].id! },
        { role: 'user', content: 'and?' },
      ],
    });
    expect(ref.status).toBe('completed');
    const dup = await refusal(
      client().responses.create({
        model: 'gpt-4o',
        previous_response_id: first.id,
        input: [{ type: 'item_reference', id: first.output[0].id! }],
      }),
    );
    expect(dup.message).toMatch(/Duplicate item/);
  });
});

describe('background', () => {
  test('queued, then in progress, then completed: polled with retrieve', async () => {
    const queued = await client().responses.create({ model: 'gpt-4o', input: 'Take your time', background: true });
    expect(queued).toMatchObject({ status: 'queued', background: true, output: [] });
    const done = await eventually(async () => {
      const r = await client().responses.retrieve(queued.id);
      return r.status === 'completed' ? r : undefined;
    });
    expect(done.output_text).toMatch(/Take your time/);
    expect(done.usage!.output_tokens).toBeGreaterThan(0);
  });

  test('cancel stops one still running; a foreground response cannot be cancelled; background needs store', async () => {
    const running = await client().responses.create({ model: 'gpt-4o', input: 'forever [[fail:timeout]]', background: true });
    await waitUntil(async () => (await client().responses.retrieve(running.id)).status === 'in_progress');
    const cancelled = await client().responses.cancel(running.id);
    expect(cancelled.status).toBe('cancelled');
    expect((await client().responses.retrieve(running.id)).status).toBe('cancelled');
    const foreground = await client().responses.create({ model: 'gpt-4o', input: 'now' });
    expect((await refusal(client().responses.cancel(foreground.id))).status).toBe(400);
    expect((await refusal(client().responses.create({ model: 'gpt-4o', input: 'x', background: true, store: false }))).param).toBe(
      'background',
    );
  });
});

describe('tools', () => {
  test('a function call answered with function_call_output on the stored chain', async () => {
    const first = await client().responses.create({ model: 'gpt-6.1-terra', input: 'Weather in Paris?', tools: [weather] });
    const call = first.output.find((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call')!;
    expect(JSON.parse(call.arguments)).toEqual({ city: expect.any(String) });
    const answer = await client().responses.create({
      model: 'gpt-6.1-terra',
      previous_response_id: first.id,
      tools: [weather],
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temp_c": 21}' }],
    });
    expect(answer.output_text).toMatch(/get_weather.*temp_c/);
    const orphan = await refusal(
      client().responses.create({ model: 'gpt-4o', input: [{ type: 'function_call_output', call_id: 'call_nope', output: 'x' }] }),
    );
    expect(orphan.message).toMatch(/No tool call found/);
  });

  test('namespace tools call with their namespace; custom tools with free-form input; additional_tools items offer tools', async () => {
    const namespaced = await client().responses.create({
      model: 'gpt-4o',
      input: 'Look up the account',
      tools: [
        {
          type: 'namespace',
          name: 'crm',
          description: 'CRM',
          tools: [
            { type: 'function', name: 'find', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
          ],
        },
      ],
    } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(namespaced.output[0]).toMatchObject({ type: 'function_call', name: 'find', namespace: 'crm' });

    const custom = await client().responses.create({
      model: 'gpt-4o',
      input: 'print("hi")',
      tools: [{ type: 'custom', name: 'run_python', format: { type: 'text' } }],
    });
    expect(custom.output[0]).toMatchObject({ type: 'custom_tool_call', name: 'run_python', input: 'print("hi")' });
    const after = await client().responses.create({
      model: 'gpt-4o',
      previous_response_id: custom.id,
      tools: [{ type: 'custom', name: 'run_python' }],
      input: [{ type: 'custom_tool_call_output', call_id: (custom.output[0] as { call_id: string }).call_id, output: 'hi' }],
    });
    expect(after.output_text).toMatch(/run_python returned hi/);

    const lite = await client().responses.create({
      model: 'gpt-4o',
      input: [
        {
          type: 'additional_tools',
          role: 'developer',
          tools: [{ type: 'namespace', name: 'functions', description: '', tools: [{ type: 'custom', name: 'exec' }] }],
        },
        { role: 'user', content: 'text("ok")' },
      ],
    } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(lite.output[0]).toMatchObject({ type: 'custom_tool_call', name: 'exec', namespace: 'functions', input: 'text("ok")' });
  });

  test('hosted web search: a web_search_call, then a cited answer; streamed with its events', async () => {
    const res = await client().responses.create({
      model: 'gpt-4o',
      input: 'Search the latest otter news',
      tools: [{ type: 'web_search' }],
    });
    expect(res.output.map((o) => o.type)).toEqual(['web_search_call', 'message']);
    expect(res.output[0]).toMatchObject({ status: 'completed', action: { type: 'search', query: expect.stringContaining('otter') } });
    const text = (res.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(text.annotations[0]).toMatchObject({ type: 'url_citation', url: expect.stringMatching(/^https:/) });
    const stream = client().responses.stream({ model: 'gpt-4o', input: 'search otters', tools: [{ type: 'web_search' }] });
    const types: string[] = [];
    for await (const ev of stream) types.push(ev.type);
    expect(types).toEqual(
      expect.arrayContaining(['response.web_search_call.searching', 'response.web_search_call.completed', 'response.completed']),
    );
  });

  test('streamed function call and custom tool input: deltas add up to the item', async () => {
    const stream = client().responses.stream({ model: 'gpt-4o', input: 'Weather in Oslo', tools: [weather] });
    let args = '';
    for await (const ev of stream) if (ev.type === 'response.function_call_arguments.delta') args += ev.delta;
    const final = await stream.finalResponse();
    expect(args).toBe((final.output[0] as OpenAI.Responses.ResponseFunctionToolCall).arguments);
    const custom = client().responses.stream({ model: 'gpt-4o', input: 'echo hi', tools: [{ type: 'custom', name: 'sh' }] });
    let input = '';
    for await (const ev of custom) if (ev.type === 'response.custom_tool_call_input.delta') input += ev.delta;
    expect(input).toBe('echo hi');
  });
});

describe('reasoning items', () => {
  test('include reasoning.encrypted_content: replayed without store it restores; tampered or bare it is refused', async () => {
    const first = await client().responses.create({
      model: 'gpt-6.1-terra',
      input: 'Think about otters',
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low', summary: 'auto' },
    });
    const reasoning = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning).toMatchObject({ type: 'reasoning', encrypted_content: expect.any(String), summary: [{ type: 'summary_text' }] });
    expect(first.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const replay = (item: OpenAI.Responses.ResponseReasoningItem) =>
      client().responses.create({
        model: 'gpt-6.1-terra',
        store: false,
        input: [
          { role: 'user', content: 'Think about otters' },
          item,
          ...first.output.slice(1),
          { role: 'user', content: 'More' },
        ] as OpenAI.Responses.ResponseInput,
      });
    expect((await replay(reasoning)).status).toBe('completed');
    expect((await refusal(replay({ ...reasoning, encrypted_content: 'AAAA' + reasoning.encrypted_content!.slice(4) }))).status).toBe(400);
    expect((await refusal(replay({ ...reasoning, encrypted_content: undefined }))).status).toBe(404);
  });

  test('sampling controls and efforts as the model takes them; unknown parameters refused', async () => {
    expect((await refusal(client().responses.create({ model: 'gpt-6.1-terra', input: 'x', temperature: 0.2 }))).param).toBe('temperature');
    expect((await refusal(client().responses.create({ model: 'gpt-6.1-sol', input: 'x', reasoning: { effort: 'minimal' } }))).param).toBe(
      'reasoning.effort',
    );
    expect((await refusal(client().responses.create({ model: 'gpt-4o', input: 'x', text: { verbosity: 'loud' } } as never))).param).toBe(
      'text.verbosity',
    );
    expect((await refusal(client().responses.create({ model: 'gpt-4o', input: 'x', nonsense: 1 } as never))).param).toBe('nonsense');
    const ok = await client().responses.create({
      model: 'gpt-6.1-terra',
      input: 'x',
      text: { verbosity: 'low' },
      client_metadata: { a: 'b' },
    } as never);
    expect((ok as OpenAI.Responses.Response).text!.verbosity).toBe('low');
  });
});
