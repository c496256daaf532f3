import { ApiHarness, startApi } from '../api/harness';
import { eventually } from '../support/wait';

// calculate-price takes the very body a user sends to /generate and answers what that request is charged.

let api: ApiHarness;
let token: string;
beforeAll(async () => {
  api = await startApi();
  token = await api.apiKey(await api.account('vip', { planTokens: 1000 }));
});
afterAll(() => api.close());

async function settled(id: number): Promise<{ status: string; tokens_spent: number }> {
  return eventually(
    async () => {
      const g = (await api.request('GET', `/api/v2/generate/${id}`, { token })).body;
      return g.status === 'pending' ? undefined : g;
    },
    20_000,
    `generation ${id} finished`,
  );
}

test.each([
  { model: 'gpt-image-2.6-flare', prompt: 'a fox in snow', size: '1536x1024', quality: 'hd' },
  { model: 'flux-dev', prompt: 'a lighthouse at dusk', size: '768x1344' },
])('the /generate body of $model is accepted and priced at what generate charges', async (body) => {
  const quote = await api.request('POST', `/api/v2/models/${body.model}/calculate-price`, { token, body });
  expect(quote.status).toBe(200);
  expect(quote.body).toEqual({
    model_slug: body.model,
    tokens: expect.any(Number),
    min_token_cost: expect.any(Number),
    max_token_cost: expect.any(Number),
  });
  const gen = await api.request('POST', '/api/v2/generate', { token, body });
  expect(gen.status).toBe(200);
  const done = await settled(gen.body.id);
  expect(done.status).toBe('completed');
  expect(done.tokens_spent).toBe(quote.body.tokens);
});

test('a model field that differs from the slug is a 400 naming model', async () => {
  const res = await api.request('POST', '/api/v2/models/flux-dev/calculate-price', {
    token,
    body: { model: 'gpt-image-2.6-flare', prompt: 'x' },
  });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ field: 'model' });
  expect(res.body.message).toMatch(/flux-dev/);
});
