import { ApiHarness, startApi } from './harness';

let api: ApiHarness;
// The document is wire JSON, checked structurally below.
type Json = Record<string, any>;
let doc: Json;

beforeAll(async () => {
  api = await startApi({ PUBLIC_URL: 'https://gen.example.com' });
  const res = await api.request('GET', '/api/v2/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => api.close());

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operations(): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ method, path, op: op as Json })),
  );
}

/** Every `$ref` in the document, with where it was found. */
function refs(node: unknown, at = '#'): { ref: string; at: string }[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => refs(n, `${at}/${i}`));
  if (!node || typeof node !== 'object') return [];
  const obj = node as Json;
  const own = typeof obj.$ref === 'string' ? [{ ref: obj.$ref as string, at }] : [];
  return [...own, ...Object.entries(obj).flatMap(([k, v]) => refs(v, `${at}/${k}`))];
}

const OWNED = [
  'post /api/v2/auth/messenger',
  'post /api/v2/auth/login',
  'post /api/v2/auth/login-phone',
  'post /api/v2/auth/idp',
  'post /api/v2/auth/register',
  'post /api/v2/auth/refresh',
  'post /api/v2/auth/logout',
  'post /api/v2/auth/forgot-password',
  'post /api/v2/auth/reset-password',
  'get /api/v2/openapi.json',
  'get /api/v2/user/me',
  'patch /api/v2/user/me',
  'get /api/v2/user/balance',
  'get /api/v2/user/stats',
  'get /api/v2/user/settings',
  'patch /api/v2/user/settings',
  'get /api/v2/user/history',
  'post /api/v2/keys',
  'get /api/v2/keys',
  'patch /api/v2/keys/{id}',
  'delete /api/v2/keys/{id}',
  'get /api/v2/models',
  'get /api/v2/models/{slug}/avg-time',
  'post /api/v2/models/{slug}/calculate-price',
  'get /api/v2/assistants/system',
  'get /api/v2/assistants/user',
  'get /api/v2/assistants/marketplace',
  'post /api/v2/assistants',
  'patch /api/v2/assistants/{id}',
  'delete /api/v2/assistants/{id}',
  'post /api/v2/assistants/{id}/publish',
  'get /api/v2/payments/articles',
  'post /api/v2/payments/carrier/quick-checkout',
  'post /api/v2/payments/carrier/initiate',
];

test('an OpenAPI 3.1 document with info, servers, tags and security schemes', () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.info).toEqual(expect.objectContaining({ title: expect.any(String), version: expect.any(String) }));
  expect(doc.servers).toEqual([{ url: 'https://gen.example.com' }]);
  expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  expect(doc.components.securitySchemes.refreshCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'nb_refresh' });
  const tagNames = doc.tags.map((t: Json) => t.name);
  for (const { op } of operations()) for (const tag of op.tags) expect(tagNames).toContain(tag);
});

test('every route of this surface is documented, and every documented route exists', async () => {
  const documented = operations().map(({ method, path }) => `${method} ${path}`);
  for (const route of OWNED) expect(documented).toContain(route);
  for (const { method, path } of operations()) {
    const concrete = path.replace('{id}', '1').replace('{slug}', 'flux-dev');
    const res = await api.request(method.toUpperCase(), concrete);
    // Unauthenticated, bodiless probes may fail in many ways, but never as "no such route".
    expect([method, path, res.body?.error]).not.toEqual([method, path, 'not_found']);
    expect(res.status).not.toBe(405);
  }
});

test('operations: unique ids, responses with descriptions, declared path parameters', () => {
  const ids = new Set<string>();
  for (const { method, path, op } of operations()) {
    expect(typeof op.operationId).toBe('string');
    expect(ids.has(op.operationId)).toBe(false);
    ids.add(op.operationId);
    expect(typeof op.summary).toBe('string');
    const statuses = Object.keys(op.responses);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.some((s) => s.startsWith('2'))).toBe(true);
    for (const [status, response] of Object.entries(op.responses as Json)) {
      expect(status).toMatch(/^[1-5]\d\d$/);
      expect(typeof (response as Json).description).toBe('string');
    }
    const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const declared = (op.parameters as Json[]).filter((p) => p.in === 'path');
    expect(declared.map((p) => p.name).sort()).toEqual(inPath.sort());
    for (const p of declared) expect(p.required).toBe(true);
    for (const p of op.parameters as Json[]) expect(p.schema).toEqual(expect.any(Object));
    for (const requirement of op.security as Json[])
      for (const name of Object.keys(requirement)) expect(doc.components.securitySchemes).toHaveProperty(name);
    if (op.requestBody) {
      expect(['post', 'put', 'patch']).toContain(method);
      // JSON, or a multipart form (the /v1 media uploads) described field by field.
      const [type, body] = Object.entries(op.requestBody.content as Json)[0];
      expect(['application/json', 'multipart/form-data']).toContain(type);
      expect((body as Json).schema).toEqual(expect.any(Object));
    }
  }
});

test('errors are documented in the error shape; authenticated routes document 401, 403 and the rate-limit headers', () => {
  for (const { op } of operations()) {
    const secured = (op.security as Json[]).some((s) => 'bearerAuth' in s);
    for (const [status, response] of Object.entries(op.responses as Json)) {
      if (Number(status) >= 400)
        expect((response as Json).content['application/json'].schema.$ref).toMatch(/^#\/components\/schemas\/\w*Error$/);
    }
    if (secured) {
      expect(op.responses).toHaveProperty('401');
      expect(op.responses).toHaveProperty('403');
      const ok = Object.entries(op.responses as Json).find(([s]) => s.startsWith('2'))![1] as Json;
      expect(Object.keys(ok.headers)).toEqual(
        expect.arrayContaining(['X-RateLimit-Limit-Hour', 'X-RateLimit-Remaining', 'X-RateLimit-Reset-Hour']),
      );
    }
  }
  expect(doc.components.schemas.RateLimitError.required).toEqual(['error', 'message', 'retry_after', 'plan', 'limit_hour', 'limit_day']);
});

test('every $ref resolves to a component; the request schemas are the validating zod schemas', () => {
  const all = refs(doc);
  expect(all.length).toBeGreaterThan(20);
  for (const { ref, at } of all) {
    expect([at, ref]).toEqual([at, expect.stringMatching(/^#\/components\/schemas\//)]);
    expect(doc.components.schemas).toHaveProperty(ref.slice('#/components/schemas/'.length));
  }
  for (const name of ['Error', 'User', 'Balance', 'Stats', 'Settings', 'Generation', 'Model', 'ApiKey', 'Assistant', 'Session']) {
    expect(doc.components.schemas[name]).toMatchObject({ type: 'object', properties: expect.any(Object) });
  }
  const login = doc.paths['/api/v2/auth/login'].post.requestBody.content['application/json'].schema;
  expect(login).toMatchObject({ type: 'object', required: ['email', 'password'], additionalProperties: false });
  const settings = doc.paths['/api/v2/user/settings'].patch.requestBody.content['application/json'].schema;
  expect(settings.properties.language).toEqual({ type: 'string', enum: ['en', 'ru'] });
  const history = doc.paths['/api/v2/user/history'].get.parameters.map((p: Json) => p.name);
  expect(history).toEqual(['category', 'model', 'status', 'door', 'key', 'from', 'to', 'cursor', 'deleted', 'limit']);
  expect(doc.components.schemas.User.required).toEqual(expect.arrayContaining(['id', 'plan', 'token_balance', 'auth_methods']));
});

describe('validation against the official OpenAPI 3.1 schema', () => {
  const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
  const fs = require('node:fs') as typeof import('node:fs');
  const os = require('node:os') as typeof import('node:os');
  const path = require('node:path') as typeof import('node:path');
  const cli = path.join(__dirname, '../../node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js');

  // The validator is an ES module that reads its schemas through import.meta: it runs in its own node process.
  function validate(document: Json): { valid: boolean; errors?: unknown } {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'oas-')), 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(document));
    try {
      return JSON.parse(execFileSync(process.execPath, [cli, file], { encoding: 'utf8' }));
    } catch (err) {
      return JSON.parse((err as { stdout: string }).stdout);
    }
  }

  test('the served document is valid OpenAPI 3.1', () => {
    expect(validate(doc)).toEqual({ valid: true });
  });

  test('the check does reject a broken document', () => {
    const broken = { ...doc, info: undefined, paths: { '/x': { get: { responses: 'none' } } } };
    expect(validate(broken).valid).toBe(false);
  });
});
