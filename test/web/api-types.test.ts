import fs from 'node:fs';
import path from 'node:path';
import { ApiHarness, startApi } from '../api/harness';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

test('the dashboard’s checked-in API types cover exactly the operations of the served OpenAPI document (npm run web:api-types)', async () => {
  const doc = (await api.request('GET', '/api/v2/openapi.json')).body as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  const types = fs.readFileSync(path.join(__dirname, '..', '..', 'web', 'src', 'api', 'schema.d.ts'), 'utf8');
  const typedPaths = [...types.matchAll(/^ {4}"(\/[^"]+)": \{$/gm)].map((m) => m[1]).sort();
  expect(typedPaths).toEqual(Object.keys(doc.paths).sort());
  const operationIds = Object.values(doc.paths).flatMap((item) =>
    Object.values(item)
      .map((op) => op.operationId)
      .filter(Boolean),
  );
  for (const id of operationIds) expect(types).toContain(`    ${id}: {`);
});
