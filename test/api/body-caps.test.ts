import { BODY_CAPS } from '../../src/api/v1/body-caps';
import { MAX_JSON_VALUES } from '../../src/api/middleware/json-depth';
import { ApiHarness, ApiResponse, startApi } from './harness';

// Issue 34, finding 4: a Responses body of 900,000 input items took 9.8 s to refuse and froze the server; a
// Gemini json_schema of 400,000 properties stalled it 6.3 s; parts and schemas had no cap. Every chat surface now
// has the same documented caps, checked before validation (400 naming the field), and any JSON body past
// MAX_JSON_VALUES values is refused while its bytes arrive. (How long parsing a maximal allowed body blocks the
// event loop is measured by `npm run bench:body-parse`, not here.)

let api: ApiHarness;
let key: string;

beforeAll(async () => {
  api = await startApi();
  const account = await api.account('vip', { planTokens: 1_000_000 });
  key = await api.apiKey(account);
});
afterAll(() => api.close());

const post = (path: string, body: unknown) =>
  api.request('POST', path, { raw: JSON.stringify(body), headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` } });

/** The field a 400 names, in the surface's own error shape. */
function refusedField(res: ApiResponse): string {
  expect(res.status).toBe(400);
  if (res.path.startsWith('/v1/messages')) {
    expect(res.body.error.type).toBe('invalid_request_error');
    return /^(\S+):/.exec(res.body.error.message)?.[1] ?? '';
  }
  expect(res.body.error.code).toBe('validation_error');
  return res.body.error.param;
}

const text = (i: number) => ({ role: 'user', content: `message ${i}` });
const many = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
/** A JSON schema of `n` properties. */
const schemaOf = (n: number) => ({
  type: 'object',
  properties: Object.fromEntries(many(n, (i) => [`p${i}`, { type: 'string' }])),
});

test('the probe’s 900,000 input items are refused while the body arrives, naming the body', async () => {
  const items = many(900_000, () => ({ role: 'user', content: 'x' }));
  const res = await post('/v1/responses', { model: 'gpt-6-luna', input: items });
  expect(refusedField(res)).toBe('body');
  expect(res.body.error.message).toContain(String(MAX_JSON_VALUES));
});

describe('items: chat messages, Responses input items, Messages messages', () => {
  const over = BODY_CAPS.items + 1;
  test.each([
    ['/v1/chat/completions', { model: 'gpt-6-luna', messages: many(over, text) }, 'messages'],
    ['/v1/responses', { model: 'gpt-6-luna', input: many(over, text) }, 'input'],
    ['/v1/messages', { model: 'claude-haiku-4-5', max_tokens: 10, messages: many(over, text) }, 'messages'],
    ['/v1/messages/count_tokens', { model: 'claude-haiku-4-5', messages: many(over, text) }, 'messages'],
  ])('%s refuses one item past the cap', async (path, body, field) => {
    expect(refusedField(await post(path, body))).toBe(field);
  });

  test('exactly the cap is taken (Messages count_tokens: nothing runs at a vendor)', async () => {
    const messages = many(BODY_CAPS.items, (i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}` }));
    messages.push({ role: 'user', content: 'last' });
    messages.splice(0, 1);
    const res = await post('/v1/messages/count_tokens', { model: 'claude-haiku-4-5', messages });
    expect(res.status).toBe(200);
    expect(res.body.input_tokens).toBeGreaterThan(0);
  });
});

describe('content parts', () => {
  const part = (i: number) => ({ type: 'text', text: `part ${i}` });
  test('per message', async () => {
    const content = many(BODY_CAPS.partsPerItem + 1, part);
    expect(refusedField(await post('/v1/chat/completions', { model: 'gpt-6-luna', messages: [{ role: 'user', content }] }))).toBe(
      'messages[0].content',
    );
    const input = [
      { type: 'message', role: 'user', content: many(BODY_CAPS.partsPerItem + 1, (i) => ({ type: 'input_text', text: `${i}` })) },
    ];
    expect(refusedField(await post('/v1/responses', { model: 'gpt-6-luna', input }))).toBe('input[0].content');
  });

  test('in the whole request, nested tool results included', async () => {
    const perMessage = BODY_CAPS.partsPerItem;
    const messages = many(2 * Math.ceil(BODY_CAPS.parts / (perMessage - 1)) + 2, (i) =>
      i % 2
        ? { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'f', input: {} }] }
        : { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i - 1}`, content: many(perMessage - 1, part) }] },
    );
    const res = await post('/v1/messages', { model: 'claude-haiku-4-5', max_tokens: 10, messages });
    expect(refusedField(res)).toMatch(/^messages\[\d+\]\.content\[0\]\.content$/);
  });
});

describe('tools and schemas', () => {
  const fn = (i: number, parameters: unknown = { type: 'object' }) => ({ type: 'function', function: { name: `f${i}`, parameters } });

  test('at most 128 tools on each surface', async () => {
    const over = BODY_CAPS.tools + 1;
    expect(refusedField(await post('/v1/chat/completions', { model: 'gpt-6-luna', messages: [text(0)], tools: many(over, fn) }))).toBe(
      'tools',
    );
    const responsesTools = many(over, (i) => ({ type: 'function', name: `f${i}`, parameters: { type: 'object' } }));
    expect(refusedField(await post('/v1/responses', { model: 'gpt-6-luna', input: 'hi', tools: responsesTools }))).toBe('tools');
    const messagesTools = many(over, (i) => ({ name: `f${i}`, input_schema: { type: 'object' } }));
    expect(
      refusedField(await post('/v1/messages', { model: 'claude-haiku-4-5', max_tokens: 10, messages: [text(0)], tools: messagesTools })),
    ).toBe('tools');
  });

  test('one tool’s schema, and all tools together', async () => {
    const huge = schemaOf(BODY_CAPS.schemaValues);
    expect(refusedField(await post('/v1/chat/completions', { model: 'gpt-6-luna', messages: [text(0)], tools: [fn(0, huge)] }))).toBe(
      'tools[0].function.parameters',
    );
    // Each tool under the per-tool cap, together past the total.
    const share = schemaOf(Math.floor(BODY_CAPS.schemaValues / 3));
    const tools = many(Math.ceil(BODY_CAPS.toolValues / (BODY_CAPS.schemaValues * 0.6)) + 1, (i) => fn(i, share));
    expect(refusedField(await post('/v1/chat/completions', { model: 'gpt-6-luna', messages: [text(0)], tools }))).toMatch(
      /^tools\[\d+\]\.function\.parameters$/,
    );
  });

  test('the answer’s schema, as the probe sent it to a Gemini model, on every surface', async () => {
    const schema = schemaOf(BODY_CAPS.schemaValues);
    const chat = await post('/v1/chat/completions', {
      model: 'gemini-3-flash',
      messages: [text(0)],
      response_format: { type: 'json_schema', json_schema: { name: 'big', schema } },
    });
    expect(refusedField(chat)).toBe('response_format.json_schema.schema');
    const responses = await post('/v1/responses', {
      model: 'gemini-3-flash',
      input: 'hi',
      text: { format: { type: 'json_schema', name: 'big', schema } },
    });
    expect(refusedField(responses)).toBe('text.format.schema');
    const messages = await post('/v1/messages', {
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      messages: [text(0)],
      output_config: { format: { type: 'json_schema', schema } },
    });
    expect(refusedField(messages)).toBe('output_config.format.schema');
  });
});
