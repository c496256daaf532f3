import { ApiHarness, startApi } from './harness';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

test('POST /generate shows the options the model left out as warnings, and GET shows them again', async () => {
  const acc = await api.account('basic', { planTokens: 100, bonusTokens: 0 });
  const token = await api.accessToken(acc);
  const res = await api.request('POST', '/api/v2/generate', { token, body: { model: 'gpt-image-2.6-flare', prompt: 'a fox', seed: 42 } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    status: 'completed',
    warnings: [{ type: 'unsupported-setting', setting: 'seed', message: 'seed is not used by gpt-image-2.6-flare and was left out' }],
  });
  expect(res.body.result_metadata).not.toHaveProperty('warnings');
  const again = await api.request('GET', `/api/v2/generate/${res.body.id}`, { token });
  expect(again.body.warnings).toEqual(res.body.warnings);

  // A model that takes the seed answers without warnings.
  const flux = await api.request('POST', '/api/v2/generate', { token, body: { model: 'flux-dev', prompt: 'a fox', seed: 42 } });
  expect(flux.status).toBe(200);
  expect(flux.body.status).toBe('completed');
  expect(flux.body).not.toHaveProperty('warnings');
});
