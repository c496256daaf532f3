import { ApiHarness, startApi } from '../api/harness';
import { textModel } from '../compat/models';

// The Responses and Messages answers, success and refusals, as the OpenAPI document describes them (the harness
// checks every answer against the served document), and the one hold path all three /v1 surfaces share.

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

async function key(tokens: number): Promise<string> {
  return api.apiKey(await api.account('vip', { planTokens: tokens, bonusTokens: 0 }));
}

const model = () => textModel('openai').slug;

test('POST /v1/responses: 200, 400, 401, 402 and 404 as documented', async () => {
  const token = await key(500);
  const ok = await api.request('POST', '/v1/responses', { token, body: { model: model(), input: 'hi' } });
  expect(ok.status).toBe(200);
  expect(ok.headers.get('x-token-balance')).toMatch(/^\d+$/);
  expect(ok.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  const bad = await api.request('POST', '/v1/responses', { token, body: { model: model(), input: [] } });
  expect([bad.status, bad.body.error.param]).toEqual([400, 'input']);
  const anon = await api.request('POST', '/v1/responses', { body: { model: model(), input: 'hi' } });
  expect([anon.status, anon.body.error.type]).toEqual([401, 'authentication_error']);
  const poor = await api.request('POST', '/v1/responses', { token: await key(0), body: { model: model(), input: 'hi' } });
  expect([poor.status, poor.body.error.code]).toEqual([402, 'insufficient_tokens']);
  const missing = await api.request('POST', '/v1/responses', { token, body: { model: 'nope', input: 'hi' } });
  expect(missing.status).toBe(404);
});

test('POST /v1/messages and count_tokens: 200, 400, 401, 402 and 404 as documented, in the Anthropic shape', async () => {
  const token = await key(500);
  const body = { model: model(), max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };
  const viaHeader = await api.request('POST', '/v1/messages', { body, headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01' } });
  expect(viaHeader.status).toBe(200);
  expect(viaHeader.headers.get('x-token-balance')).toMatch(/^\d+$/);
  const viaBearer = await api.request('POST', '/v1/messages', { token, body });
  expect(viaBearer.status).toBe(200);
  const counted = await api.request('POST', '/v1/messages/count_tokens', { token, body: { model: model(), messages: body.messages } });
  expect(counted.body).toEqual({ input_tokens: expect.any(Number) });

  const bad = await api.request('POST', '/v1/messages', { token, body: { ...body, max_tokens: 0 } });
  expect(bad.status).toBe(400);
  expect(bad.body).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/max_tokens/) } });
  const anon = await api.request('POST', '/v1/messages', { body, headers: { 'x-api-key': 'nb_' + 'z'.repeat(45) } });
  expect([anon.status, anon.body.error.type]).toEqual([401, 'authentication_error']);
  const poor = await api.request('POST', '/v1/messages', { token: await key(0), body });
  expect([poor.status, poor.body.error.type]).toEqual([402, 'billing_error']);
  const missing = await api.request('POST', '/v1/messages/count_tokens', { token, body: { model: 'nope', messages: body.messages } });
  expect([missing.status, missing.body.error.type]).toEqual([404, 'not_found_error']);
  const unknownRoute = await api.request('POST', '/v1/messages/batches', { token, body });
  expect([unknownRoute.status, unknownRoute.body.type]).toEqual([404, 'error']);
});

test('one hold path: the same request on the three surfaces reserves and charges alike', async () => {
  const spent: number[] = [];
  for (const [path, body] of [
    ['/v1/chat/completions', { model: model(), max_tokens: 64, messages: [{ role: 'user', content: 'same prompt' }] }],
    ['/v1/responses', { model: model(), max_output_tokens: 64, input: 'same prompt' }],
    ['/v1/messages', { model: model(), max_tokens: 64, messages: [{ role: 'user', content: 'same prompt' }] }],
  ] as const) {
    const res = await api.request('POST', path, { token: await key(500), body });
    expect([path, res.status]).toEqual([path, 200]);
    spent.push(res.body.service.tokens_spent);
    expect(Number(res.headers.get('x-token-balance'))).toBe(500 - res.body.service.tokens_spent);
  }
  expect(new Set(spent).size).toBe(1);
});
