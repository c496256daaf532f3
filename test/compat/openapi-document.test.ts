import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiHarness, startApi } from '../api/harness';
import { OpenApiConformance } from '../support/openapi-conformance';
import { textModel, weatherTool } from './models';

// The OpenAPI document is complete: every 2xx answer has its schema, real answers match it (the harness checks
// every answer of every test), and a client generated from it types the answers.

type Json = Record<string, any>;
let api: ApiHarness;
let doc: Json;
let token: string;

beforeAll(async () => {
  api = await startApi();
  doc = (await api.request('GET', '/api/v2/openapi.json')).body;
  token = await api.apiKey(await api.account('vip', { planTokens: 1000 }));
});
afterAll(() => api.close());

function operations(): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([p, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ method, path: p, op: op as Json })),
  );
}

test('every 2xx answer documents its body schema (204 has none; event streams name their media type; files have a binary schema)', () => {
  const missing: string[] = [];
  for (const { method, path: p, op } of operations()) {
    for (const [status, response] of Object.entries(op.responses as Json)) {
      if (!status.startsWith('2') || status === '204') continue;
      const content = (response as Json).content ?? {};
      const ok =
        content['application/json']?.schema ||
        content['text/event-stream'] ||
        Object.values(content as Json).some((c) => (c as Json).schema?.format === 'binary');
      if (!ok) missing.push(`${method} ${p} ${status}`);
    }
  }
  expect(missing).toEqual([]);
});

test('the /v1 routes are in the document with the compatible error shape', () => {
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/chat/completions', '/v1/models', '/v1/models/{id}']));
  const chat = doc.paths['/v1/chat/completions'].post;
  expect(chat.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/ChatCompletion');
  expect(chat.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/V1Error');
  const body = chat.requestBody.content['application/json'].schema;
  expect(Object.keys(body.properties)).toEqual(
    expect.arrayContaining(['tools', 'tool_choice', 'parallel_tool_calls', 'response_format', 'stop', 'seed', 'user']),
  );
});

test('the check fails an answer that does not match, and a 2xx JSON answer the document does not describe', () => {
  const check = new OpenApiConformance(doc);
  expect(
    check.problem('GET', '/v1/models/gpt-6.1-sol', 200, 'application/json', {
      id: 'gpt-6.1-sol',
      object: 'model',
      created: 1,
      owned_by: 'openai',
      category: 'text',
      upstream_id: 'gpt-6.1-sol',
      deprecated_at: null,
      shutdown_at: null,
      replacement: null,
    }),
  ).toBeUndefined();
  expect(check.problem('GET', '/v1/models/gpt-6.1-sol', 200, 'application/json', { id: 7 })).toMatch(/does not match/);
  const stripped = JSON.parse(JSON.stringify(doc));
  delete stripped.paths['/api/v2/generate'].post.responses['200'].content;
  expect(new OpenApiConformance(stripped).problem('POST', '/api/v2/generate', 200, 'application/json', { id: 1 })).toMatch(
    /without a documented schema/,
  );
});

test('real answers of the /v1 routes and the generation routes match the document', async () => {
  // api.request checks each answer against the document and throws on a mismatch.
  const seen = new Set<string>();
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await api.request(method, url, { token, body });
    expect([method, url, res.status]).toEqual([method, url, expect.any(Number)]);
    if (res.status < 300) seen.add(`${method} ${new OpenApiConformance(doc).operation(method, url)!.path}`);
    return res;
  };
  await call('GET', '/v1/models');
  await call('GET', '/v1/models/gpt-6-luna');
  expect((await call('GET', '/v1/models/no-such-model')).status).toBe(404);
  await call('POST', '/v1/chat/completions', { model: textModel('anthropic').slug, messages: [{ role: 'user', content: 'hi' }] });
  const tools = await call('POST', '/v1/chat/completions', {
    model: textModel('google').slug,
    messages: [{ role: 'user', content: 'weather?' }],
    tools: [weatherTool],
  });
  expect(tools.body.choices[0].message.content).toBeNull();
  expect(
    (await call('POST', '/v1/chat/completions', { model: 'claude-haiku-4-5', n: 3, messages: [{ role: 'user', content: 'hi' }] })).status,
  ).toBe(400);
  const gen = await call('POST', '/api/v2/generate', { model: 'flux-dev', prompt: 'a lighthouse' });
  await call('GET', `/api/v2/generate/${gen.body.id}`);
  await call('POST', '/api/v2/models/flux-dev/calculate-price', { model: 'flux-dev', prompt: 'a lighthouse' });
  const schedule = await call('POST', '/api/v2/schedules', {
    name: 'Nightly',
    request: { model: 'flux-dev', prompt: 'x' },
    interval_minutes: 60,
  });
  await call('GET', '/api/v2/schedules');
  await call('PATCH', `/api/v2/schedules/${schedule.body.id}`, { enabled: false });
  expect([...seen].sort()).toEqual(
    [
      'GET /v1/models',
      'GET /v1/models/{id}',
      'POST /v1/chat/completions',
      'POST /api/v2/generate',
      'GET /api/v2/generate/{id}',
      'POST /api/v2/models/{slug}/calculate-price',
      'POST /api/v2/schedules',
      'GET /api/v2/schedules',
      'PATCH /api/v2/schedules/{id}',
    ].sort(),
  );
});

test('a client typed by openapi-typescript compiles against a /generate call that reads id and status', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oas-ts-'));
  fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc));
  const root = path.join(__dirname, '../..');
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules/openapi-typescript/bin/cli.js'), path.join(dir, 'openapi.json'), '-o', path.join(dir, 'api.d.ts')],
    { stdio: 'pipe' },
  );
  fs.writeFileSync(
    path.join(dir, 'client.ts'),
    [
      "import type { paths } from './api';",
      "type GenerateBody = paths['/api/v2/generate']['post']['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;",
      "type Generation = paths['/api/v2/generate']['post']['responses'][200]['content']['application/json'];",
      "type Completion = paths['/v1/chat/completions']['post']['responses'][200]['content']['application/json'];",
      'export async function generate(base: string, body: GenerateBody): Promise<string> {',
      "  const res = await fetch(`${base}/api/v2/generate`, { method: 'POST', body: JSON.stringify(body) });",
      '  const g = (await res.json()) as Generation;',
      '  const id: number = g.id;',
      "  const status: 'pending' | 'completed' | 'failed' = g.status;",
      '  // @ts-expect-error status is typed, not any or never',
      '  const wrong: number = g.status;',
      '  return `${id} ${status} ${wrong}`;',
      '}',
      'export const firstToolCall = (c: Completion): string | undefined => c.choices[0].message.tool_calls?.[0]?.function.name;',
      "export const body: GenerateBody = { model: 'flux-dev', prompt: 'a lighthouse' };",
      '',
    ].join('\n'),
  );
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const compile = () =>
    execFileSync(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--target',
        'es2022',
        '--module',
        'commonjs',
        '--lib',
        'es2022,dom',
        path.join(dir, 'client.ts'),
      ],
      { encoding: 'utf8' },
    );
  expect(() => compile()).not.toThrow();
  // The same file fails once the answer is untyped: the check has teeth.
  const untyped = fs
    .readFileSync(path.join(dir, 'api.d.ts'), 'utf8')
    .replace(/"application\/json": components\["schemas"\]\["Generation"\]/g, '"application/json": never');
  fs.writeFileSync(path.join(dir, 'api.d.ts'), untyped);
  expect(() => compile()).toThrow();
  fs.rmSync(dir, { recursive: true, force: true });
}, 300_000);
