import { z } from 'zod';
import { AssistantSchema, OwnAssistantSchema } from '../../src/api/openapi/components';
import { ApiHarness, expectErrorShape, startApi } from './harness';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const signIn = async () => {
  const account = await api.account();
  return { account, token: await api.accessToken(account) };
};

describe('assistants', () => {
  test('system assistants: the built-in ones, as Assistant objects', async () => {
    const { token } = await signIn();
    const res = await api.request('GET', '/api/v2/assistants/system', { token });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.length).toBeGreaterThan(0);
    for (const a of res.body) expect(z.strictObject(AssistantSchema.shape).safeParse(a).success).toBe(true);
    expect(res.body[0]).toEqual({
      id: expect.any(Number),
      name: 'General assistant',
      description: 'Helpful answers on any topic.',
      model_slug: 'gpt-6-luna',
      is_public: true,
    });
  });

  test('create, list own, update, publish to the marketplace, unpublish, delete', async () => {
    const { token } = await signIn();
    const created = await api.request('POST', '/api/v2/assistants', {
      token,
      body: { name: 'Poet', description: 'Writes verse', model_slug: 'claude-haiku-4-5', system_prompt: 'Answer in rhyme.' },
    });
    expect(created.status).toBe(201);
    expect(z.strictObject(OwnAssistantSchema.shape).safeParse(created.body).success).toBe(true);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'Poet',
      description: 'Writes verse',
      model_slug: 'claude-haiku-4-5',
      is_public: false,
      system_prompt: 'Answer in rhyme.',
    });
    const id = created.body.id;

    expect((await api.request('GET', '/api/v2/assistants/user', { token })).body).toEqual([created.body]);
    const marketplace = async () =>
      (await api.request('GET', '/api/v2/assistants/marketplace', { token })).body.map((a: { id: number }) => a.id);
    expect(await marketplace()).not.toContain(id);

    const updated = await api.request('PATCH', `/api/v2/assistants/${id}`, {
      token,
      body: { description: 'Writes sonnets', model_slug: 'gpt-6.1-sol' },
    });
    expect(updated.body).toMatchObject({ id, name: 'Poet', description: 'Writes sonnets', model_slug: 'gpt-6.1-sol', is_public: false });

    const published = await api.request('POST', `/api/v2/assistants/${id}/publish`, { token });
    expect(published.status).toBe(200);
    expect(published.body.is_public).toBe(true);
    const listed = await api.request('GET', '/api/v2/assistants/marketplace', { token });
    const entry = listed.body.find((a: { id: number }) => a.id === id);
    // Others see the public fields, never the instructions.
    expect(entry).toEqual({ id, name: 'Poet', description: 'Writes sonnets', model_slug: 'gpt-6.1-sol', is_public: true });
    const systemIds = (await api.request('GET', '/api/v2/assistants/system', { token })).body.map((a: { id: number }) => a.id);
    expect(listed.body.map((a: { id: number }) => a.id).filter((x: number) => systemIds.includes(x))).toEqual([]);

    await api.request('PATCH', `/api/v2/assistants/${id}`, { token, body: { is_public: false } });
    expect(await marketplace()).not.toContain(id);

    expect((await api.request('DELETE', `/api/v2/assistants/${id}`, { token })).status).toBe(204);
    expect((await api.request('GET', '/api/v2/assistants/user', { token })).body).toEqual([]);
  });

  test('the model must exist and be a text model', async () => {
    const { token } = await signIn();
    for (const model_slug of ['no-such-model', 'flux-dev']) {
      const res = await api.request('POST', '/api/v2/assistants', { token, body: { name: 'X', model_slug } });
      expectErrorShape(res, 400, 'validation_error');
      expect(res.body.field).toBe('model_slug');
    }
  });

  test('another user’s and built-in assistants answer 404 to changes', async () => {
    const owner = await signIn();
    const intruder = await signIn();
    const created = await api.request('POST', '/api/v2/assistants', {
      token: owner.token,
      body: { name: 'Mine', model_slug: 'gpt-6-luna' },
    });
    const id = created.body.id;
    const systemId = (await api.request('GET', '/api/v2/assistants/system', { token: intruder.token })).body[0].id;
    for (const target of [id, systemId]) {
      expectErrorShape(
        await api.request('PATCH', `/api/v2/assistants/${target}`, { token: intruder.token, body: { name: 'Hacked' } }),
        404,
        'not_found',
      );
      expectErrorShape(await api.request('POST', `/api/v2/assistants/${target}/publish`, { token: intruder.token }), 404, 'not_found');
      expectErrorShape(await api.request('DELETE', `/api/v2/assistants/${target}`, { token: intruder.token }), 404, 'not_found');
    }
    expect((await api.request('GET', '/api/v2/assistants/user', { token: intruder.token })).body).toEqual([]);
    expect((await api.request('GET', '/api/v2/assistants/user', { token: owner.token })).body[0]).toMatchObject({
      id,
      name: 'Mine',
      is_public: false,
    });
  });
});
