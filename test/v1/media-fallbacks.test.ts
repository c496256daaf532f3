import OpenAI from 'openai';
import { sendJson, type SandboxHandler } from '../../src/sandbox/types';
import { ApiHarness, startApi } from '../api/harness';

// OpenRouter's `models` on the media routes: when the first model cannot serve before its first byte (its vendor is
// down here: FLUX answers 503), the next one answers, billed at its own price; the history names it.

const down: SandboxHandler = (_req, res) => sendJson(res, 503, { detail: 'Service temporarily unavailable' });
let api: ApiHarness;
beforeAll(async () => {
  api = await startApi({}, { handlers: { bfl: down } });
});
afterAll(() => api.close());

test('images.generate with models: the fallback serves, at its price', async () => {
  const account = await api.account('vip', { planTokens: 1000, bonusTokens: 0 });
  const key = await api.apiKey(account);
  const openai = new OpenAI({ apiKey: key, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
  const res = await openai.images.generate({ model: 'flux-dev', prompt: 'a fox', models: ['gemini-3.1-flash-image'] } as never);
  expect(res.data).toHaveLength(1);
  const rows = await api.db.dataSource.query<{ model_slug: string; tokens_spent: number }[]>(
    'SELECT model_slug, tokens_spent FROM generations WHERE user_id = $1',
    [account.user.id],
  );
  const price = (await api.request('POST', '/api/v2/models/gemini-3.1-flash-image/calculate-price', { token: key, body: { prompt: 'x' } }))
    .body.tokens;
  expect(rows).toEqual([{ model_slug: 'gemini-3.1-flash-image', tokens_spent: price }]);
});

test('a fallback of another category is a 400 naming model, before anything runs', async () => {
  const account = await api.account('vip', { planTokens: 1000, bonusTokens: 0 });
  const openai = new OpenAI({ apiKey: await api.apiKey(account), baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
  const err = (await openai.images
    .generate({ model: 'gemini-3.1-flash-image', prompt: 'a fox', models: ['gpt-6-luna'] } as never)
    .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
  expect([err.status, err.param]).toEqual([400, 'model']);
  expect(await api.db.dataSource.query('SELECT id FROM generations WHERE user_id = $1', [account.user.id])).toEqual([]);
});
