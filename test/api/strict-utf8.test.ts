// Invalid UTF-8 in a JSON body, a multipart field, a query string or a path is refused with 400 invalid_input, in the error shape of
// the surface; it is never decoded into U+FFFD and stored.
import sharp from 'sharp';
import { syntheticImage } from '../../src/sandbox/synthetic';
import { multipart } from '../support/multipart';
import { ApiHarness, expectErrorShape, startApi } from './harness';

let api: ApiHarness;
let token: string;
let userId: number;

beforeAll(async () => {
  api = await startApi();
  const account = await api.account('vip', { name: 'Original Name' });
  userId = account.user.id;
  token = await api.accessToken(account);
});
afterAll(() => api.close());

/** Byte sequences that are not UTF-8: an encoded surrogate, an overlong slash, a stray continuation, a cut sequence, 0xFF. */
const INVALID = [[0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x80], [0xe0, 0xa4], [0xff]];
const hex = (bytes: number[]) => bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** `{"<field>": "a<bytes>b", ...rest}` as raw bytes. */
function bodyWith(field: string, bytes: number[], rest: Record<string, unknown> = {}): Buffer {
  const tail = Object.keys(rest).length > 0 ? `, ${JSON.stringify(rest).slice(1, -1)}` : '';
  return Buffer.concat([Buffer.from(`{"${field}": "a`), Buffer.from(bytes), Buffer.from(`b"${tail}}`)]);
}

const json = { 'Content-Type': 'application/json' };

test('a JSON body with invalid UTF-8 is 400 invalid_input and changes nothing (/api/v2)', async () => {
  for (const bytes of INVALID) {
    const patched = await api.request('PATCH', '/api/v2/user/me', { token, raw: bodyWith('name', bytes), headers: json });
    expectErrorShape(patched, 400, 'invalid_input');
    expect(patched.body.field).toBe('body');
    const created = await api.request('POST', '/api/v2/assistants', {
      token,
      raw: bodyWith('name', bytes, { model_slug: 'gpt-6-luna' }),
      headers: json,
    });
    expectErrorShape(created, 400, 'invalid_input');
  }
  expect((await api.request('GET', '/api/v2/user/me', { token })).body.name).toBe('Original Name');
  const [{ n }] = await api.db.dataSource.query('SELECT count(*)::int AS n FROM assistants WHERE owner_id = $1', [userId]);
  expect(n).toBe(0);
  // The same body in valid UTF-8 goes through, U+FFFD itself included: only invalid bytes are refused.
  const fine = await api.request('PATCH', '/api/v2/user/me', { token, raw: Buffer.from('{"name": "Zoë \uFFFD"}'), headers: json });
  expect(fine.status).toBe(200);
  expect(fine.body.name).toBe('Zoë \uFFFD');
});

test('invalid UTF-8 in a key, and on the public sign-in routes, is refused the same way', async () => {
  const key = Buffer.concat([Buffer.from('{"'), Buffer.from([0xff]), Buffer.from('": 1}')]);
  expectErrorShape(await api.request('PATCH', '/api/v2/user/me', { token, raw: key, headers: json }), 400, 'invalid_input');
  const login = await api.request('POST', '/api/v2/auth/login', { raw: bodyWith('email', [0xc0, 0xaf], { password: 'x' }), headers: json });
  expectErrorShape(login, 400, 'invalid_input');
});

test('on /v1 the answer has the OpenAI error shape, and no generation is started', async () => {
  const raw = Buffer.concat([
    Buffer.from('{"model": "gpt-6-luna", "messages": [{"role": "user", "content": "hi '),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from('"}]}'),
  ]);
  const res = await api.request('POST', '/v1/chat/completions', { token, raw, headers: json });
  expectErrorShape(res, 400, 'invalid_input');
  expect(res.body.error.type).toBe('invalid_request_error');
  const [{ n }] = await api.db.dataSource.query('SELECT count(*)::int AS n FROM generations WHERE user_id = $1', [userId]);
  expect(n).toBe(0);
});

test('a query value or key with invalid UTF-8 is 400 invalid_input, on both surfaces', async () => {
  for (const bytes of INVALID) {
    const value = await api.request('GET', `/api/v2/user/history?model=${hex(bytes)}`, { token });
    expectErrorShape(value, 400, 'invalid_input');
    expect(value.body.field).toBe('model');
    expectErrorShape(await api.request('GET', `/api/v2/models?x${hex(bytes)}=1`, { token }), 400, 'invalid_input');
    expectErrorShape(await api.request('GET', `/v1/models?q=${hex(bytes)}`, { token }), 400, 'invalid_input');
  }
  // Valid escapes, a literal % and + as a space still work as before.
  expect((await api.request('GET', '/api/v2/user/history?model=flux%2Ddev', { token })).status).toBe(200);
  expect((await api.request('GET', '/api/v2/models?note=100%&x=a+b%C3%A9', { token })).status).toBe(200);
});

test('a path with invalid UTF-8 is 400 invalid_input; a broken escape stays 400 invalid_path', async () => {
  for (const bytes of INVALID) {
    expectErrorShape(await api.request('GET', `/api/v2/keys/${hex(bytes)}`, { token }), 400, 'invalid_input');
    const v1 = await api.request('GET', `/v1/models/${hex(bytes)}`, { token });
    expectErrorShape(v1, 400, 'invalid_input');
  }
  expectErrorShape(await api.request('GET', '/api/v2/keys/%E0%A4%A', { token }), 400, 'invalid_path');
  expectErrorShape(await api.request('GET', '/api/v2/keys/%zz', { token }), 400, 'invalid_path');
  expect((await api.request('GET', '/v1/models/gpt%2D4o-mini', { token })).status).toBe(200);
});

test('a multipart field with invalid UTF-8 is 400 invalid_input; valid UTF-8 arrives intact', async () => {
  const image = await syntheticImage(256, 256, 'room');
  const mask = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#000' } })
    .composite([{ input: { create: { width: 64, height: 64, channels: 3, background: '#fff' } }, left: 96, top: 96 }])
    .png()
    .toBuffer();
  const inpaint = (prompt: string | Buffer, filename = 'i.png') => {
    const form = multipart([
      { name: 'image', value: image, filename, type: 'image/png' },
      { name: 'mask', value: mask, filename: 'm.png', type: 'image/png' },
      { name: 'prompt', value: prompt },
    ]);
    return api.request('POST', '/api/v2/inpaint', { token, raw: form.body, headers: { 'Content-Type': form.type } });
  };
  for (const bytes of INVALID) {
    const res = await inpaint(Buffer.concat([Buffer.from('a red '), Buffer.from(bytes), Buffer.from(' chair')]));
    expectErrorShape(res, 400, 'invalid_input');
    expect(res.body.field).toBe('prompt');
  }
  expect((await api.db.dataSource.query('SELECT count(*)::int AS n FROM generations WHERE user_id = $1', [userId]))[0].n).toBe(0);
  const fine = await inpaint('a red chair, Zoë’s café ☕', 'pièce.png');
  expect(fine.status).toBe(200);
  const [stored] = await api.db.dataSource.query('SELECT prompt FROM generations WHERE id = $1', [fine.body.id]);
  expect(stored.prompt).toBe('a red chair, Zoë’s café ☕');
});

test('a field part with a Content-Transfer-Encoding is read as its bytes, never crashes the parser', async () => {
  const boundary = '----ng-cte';
  const form = (encoding: string, value: string) =>
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\nContent-Transfer-Encoding: ${encoding}\r\n\r\n${value}\r\n` +
        `--${boundary}--\r\n`,
    );
  const post = (body: Buffer) =>
    api.request('POST', '/api/v2/inpaint', { token, raw: body, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } });
  // "7bit" and "8bit" used to throw out of formidable's stream handler (an unhandled rejection: the process ended).
  for (const encoding of ['7bit', '8bit', 'binary', 'base64']) {
    const res = await post(form(encoding, encoding === 'base64' ? Buffer.from('a chair').toString('base64') : 'a chair'));
    expectErrorShape(res, 400, 'validation_error');
    expect(res.body.field).toBe('image');
  }
  expectErrorShape(await post(form('x-unknown', 'a chair')), 400, 'invalid_multipart');
  expect((await api.request('GET', '/api/v2/user/me', { token })).status).toBe(200);
});
