// Every status an operation answers is in the OpenAPI document (issue 26: Schemathesis found undocumented 404 and
// 415 answers on 6 operations). The harness checks each answer of every test against the document (api.request
// at once, and every answer the app sent, SDK calls included, when it closes); this sweep asks every operation of
// the document the questions Schemathesis asks first, so each one answers its error statuses at least once.
import { OpenApiConformance } from '../support/openapi-conformance';
import { ApiHarness, ApiResponse, startApi } from './harness';

type Json = Record<string, any>;

let api: ApiHarness;
let doc: Json;
let token: string;

interface Operation {
  method: string;
  path: string;
  op: Json;
}

beforeAll(async () => {
  api = await startApi();
  doc = (await api.request('GET', '/api/v2/openapi.json')).body;
  const account = await api.account('vip', { planTokens: 1000 });
  // An admin, so the console's routes answer past their guard (a non-admin is refused with 403 before the lookup).
  await api.db.dataSource.query('UPDATE users SET is_admin = true WHERE id = $1', [account.user.id]);
  token = await api.accessToken(account);
});
afterAll(() => api.close());

function operations(): Operation[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ method: method.toUpperCase(), path, op: op as Json })),
  );
}

const isBearer = (o: Operation) => (o.op.security as Json[]).some((s) => 'bearerAuth' in s);
const jsonBody = (o: Operation) => Boolean(o.op.requestBody?.content?.['application/json']);

/** A path of the operation whose objects do not exist: ids nobody has, a model the catalog has not. */
function missingObjectPath(path: string): string {
  return path
    .replace('/auth/sessions/{id}', '/auth/sessions/00000000-0000-4000-8000-000000000000')
    .replace('{id}', '2147483647')
    .replace('{slug}', 'no-such-model');
}

/** Valid bodies of the console's account actions, so the lookup (404) is what answers. */
const ADMIN_USER_BODIES: Record<string, unknown> = {
  '/api/v2/admin/users/{id}/grant': { bonus_tokens: 1, reason: 'sweep' },
  '/api/v2/admin/users/{id}/plan': { plan: 'pro', expires_at: null },
  '/api/v2/admin/users/{id}/block': { blocked: true, reason: 'sweep' },
};

/** Sends through the harness, which throws on a status or a body the document does not list for the operation. */
async function ask(
  o: Operation,
  url: string,
  init: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
): Promise<ApiResponse> {
  return api.request(o.method, url, init);
}

test('the sweep covers every operation of the document', () => {
  expect(operations().length).toBeGreaterThanOrEqual(66);
});

test('no credentials: bearer operations answer a documented 401', async () => {
  for (const o of operations().filter(isBearer)) {
    const res = await ask(o, missingObjectPath(o.path), {});
    expect([`${o.method} ${o.path}`, res.status]).toEqual([`${o.method} ${o.path}`, 401]);
  }
});

test('objects that do not exist: a documented 404 on every operation that names one', async () => {
  const naming = operations().filter((o) => /\{(id|slug)\}/.test(o.path));
  expect(naming.length).toBeGreaterThanOrEqual(17);
  for (const o of naming) {
    const body = !jsonBody(o)
      ? undefined
      : o.path.endsWith('/calculate-price')
        ? { prompt: 'x' }
        : o.path.includes('/schedules/') || o.path.includes('/admin/catalog/')
          ? { enabled: true }
          : (ADMIN_USER_BODIES[o.path] ?? {});
    const res = await ask(o, missingObjectPath(o.path), { token, body });
    expect([`${o.method} ${o.path}`, res.status]).toEqual([`${o.method} ${o.path}`, 404]);
  }
});

test('another content type: a documented 415 on every body operation (JSON and multipart)', async () => {
  for (const o of operations().filter((op) => op.op.requestBody)) {
    const res = await ask(o, missingObjectPath(o.path), { token, raw: 'x=1', headers: { 'Content-Type': 'text/plain' } });
    expect([`${o.method} ${o.path}`, res.status]).toEqual([`${o.method} ${o.path}`, 415]);
  }
});

test('a query string that is not UTF-8: a documented 400 on every operation', async () => {
  for (const o of operations()) {
    const res = await ask(o, `${missingObjectPath(o.path)}?q=%FF`, { token });
    expect([`${o.method} ${o.path}`, res.status]).toEqual([`${o.method} ${o.path}`, 400]);
  }
});

test('the check has teeth: an error status the document does not list is a failure', () => {
  const stripped = JSON.parse(JSON.stringify(doc)) as Json;
  delete stripped.paths['/api/v2/schedules/{id}'].delete.responses['404'];
  const check = new OpenApiConformance(stripped);
  expect(check.problem('DELETE', '/api/v2/schedules/7', 404, 'application/json', { error: 'not_found', message: 'x' })).toMatch(
    /DELETE \/api\/v2\/schedules\/\{id\} -> 404: the status is not documented/,
  );
  expect(
    new OpenApiConformance(doc).problem('DELETE', '/api/v2/schedules/7', 404, 'application/json', { error: 'not_found', message: 'x' }),
  ).toBe(undefined);
});
