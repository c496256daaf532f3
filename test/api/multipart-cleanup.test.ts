// Multipart uploads leave no temporary file behind, whatever happens (success, refusal, overflow, abort), and a
// refusal names its real reason (413 only for size).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { syntheticImage, syntheticWav } from '../../src/sandbox/synthetic';
import { multipart } from '../support/multipart';
import { ApiHarness, expectErrorShape, startApi } from './harness';
import { waitUntil } from '../support/wait';

let api: ApiHarness;
let token: string;
let tmp: string;
const originalTmp = process.env.TMPDIR;

beforeAll(async () => {
  api = await startApi();
  token = await api.accessToken(await api.account('vip', { planTokens: 500 }));
  // os.tmpdir() reads TMPDIR on every call: uploads of this file's server land here.
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-multipart-test-'));
  process.env.TMPDIR = tmp;
});
afterAll(async () => {
  process.env.TMPDIR = originalTmp;
  fs.rmSync(tmp, { recursive: true, force: true });
  await api.close();
});

const leftovers = () => fs.readdirSync(tmp, { recursive: true }) as string[];

const post = (route: string, form: { body: Buffer; type: string }) =>
  api.request('POST', route, { token, raw: form.body, headers: { 'Content-Type': form.type } });

test('success, validation failure, wrong type and too many files: no temp file left; only size is a 413', async () => {
  const ok = await post('/api/v2/stt', multipart([{ name: 'audio', value: syntheticWav(1), filename: 'a.wav', type: 'audio/wav' }]));
  expect(ok.status).toBe(200);
  expect(leftovers()).toEqual([]);

  const invalid = await post(
    '/api/v2/stt',
    multipart([
      { name: 'audio', value: syntheticWav(1), filename: 'a.wav', type: 'audio/wav' },
      { name: 'diarize', value: 'true' },
    ]),
  );
  expectErrorShape(invalid, 400, 'validation_error');
  const notAudio = await post('/api/v2/stt', multipart([{ name: 'audio', value: 'plain text', filename: 'a.mp3', type: 'audio/mpeg' }]));
  expectErrorShape(notAudio, 415);
  const twoFiles = await post(
    '/api/v2/stt',
    multipart([
      { name: 'audio', value: syntheticWav(1), filename: 'a.wav', type: 'audio/wav' },
      { name: 'audio2', value: syntheticWav(1), filename: 'b.wav', type: 'audio/wav' },
    ]),
  );
  expectErrorShape(twoFiles, 400, 'invalid_multipart');
  expect(twoFiles.body.message).toMatch(/Too many files/);
  const nul = await post(
    '/api/v2/stt',
    multipart([
      { name: 'audio', value: syntheticWav(1), filename: 'a.wav', type: 'audio/wav' },
      { name: 'language', value: 'e\u0000n' },
    ]),
  );
  expectErrorShape(nul, 400, 'invalid_input');
  const image = await syntheticImage(64, 64, 'png');
  const inpaintMissing = await post('/api/v2/inpaint', multipart([{ name: 'image', value: image, filename: 'i.png', type: 'image/png' }]));
  expectErrorShape(inpaintMissing, 400, 'validation_error');
  const broken = await api.request('POST', '/api/v2/stt', {
    token,
    raw: '--x\r\nContent-Disposition: form-data; name="audio"; filename="a"\r\n\r\nabc',
    headers: { 'Content-Type': 'multipart/form-data; boundary=x' },
  });
  expect(broken.status).toBe(400);
  expect(leftovers()).toEqual([]);
});

/** Streams a multipart upload of `mb` MiB without Content-Length; `abortAfterMb` cuts the connection midway. */
function stream(mb: number, abortAfterMb?: number): Promise<{ status: number; body: string } | 'aborted'> {
  const url = new URL(`${api.baseUrl}/api/v2/stt`);
  const boundary = '----big';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="big.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const chunk = Buffer.alloc(1024 * 1024, 1);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', () => resolve('aborted'));
    req.write(head);
    let sent = 0;
    const pump = () => {
      while (sent < mb) {
        if (abortAfterMb !== undefined && sent >= abortAfterMb) {
          req.destroy();
          return resolve('aborted');
        }
        sent += 1;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end(`\r\n--${boundary}--\r\n`);
    };
    pump();
  });
}

async function eventuallyEmpty(): Promise<void> {
  await waitUntil(() => leftovers().length === 0, 5000, 'no upload left behind').catch(() => undefined);
  expect(leftovers()).toEqual([]);
}

test('a streamed upload past 25 MB is a 413 and leaves nothing behind', async () => {
  const res = await stream(26);
  expect(res).not.toBe('aborted');
  expect((res as { status: number }).status).toBe(413);
  await eventuallyEmpty();
}, 60_000);

test('a client that aborts midway leaves nothing behind', async () => {
  expect(await stream(10, 3)).toBe('aborted');
  await eventuallyEmpty();
}, 60_000);
