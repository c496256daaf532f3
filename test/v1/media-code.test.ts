import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { startWorkers } from '../../src/jobs/workers';
import { mediaCode, type MediaRequest } from '../../web/src/lib/media-code';
import { ApiHarness, startApi } from '../api/harness';

// The dashboard's "View code" for media models: the snippets it shows run as they are, against this service.

const run = promisify(execFile);
let api: ApiHarness;
let key: string;
let dir: string;
beforeAll(async () => {
  api = await startApi();
  await api.services.boss.start();
  await startWorkers(api.services.boss, api.services);
  key = await api.apiKey(await api.account('vip', { planTokens: 1000 }));
  // Inside the repository, so the snippet's `import OpenAI from 'openai'` resolves as it would in a user's project.
  dir = fs.mkdtempSync(path.join(__dirname, '.media-code-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await api.close();
});

/** Runs a JavaScript snippet with the key in NEBULA_API_KEY, in its own directory (where it writes its files). */
async function runJavaScript(code: string): Promise<void> {
  const file = path.join(dir, `snippet-${Date.now()}.mjs`);
  fs.writeFileSync(file, code);
  await run(process.execPath, [file], { cwd: dir, env: { ...process.env, NEBULA_API_KEY: key }, timeout: 30_000 });
}

/** The JSON body of a curl snippet's first request. */
function curlBody(code: string): Record<string, unknown> {
  return JSON.parse(/-d '([\s\S]*?)'(?:\n|$)/.exec(code)![1]!) as Record<string, unknown>;
}

test('image: the JavaScript snippet (openai images.generate) writes the image; the curl body is answered 200', async () => {
  const request: MediaRequest = { category: 'image', model: 'flux-dev', prompt: 'a red fox', size: '768x1344', format: 'webp' };
  await runJavaScript(mediaCode('javascript', request, api.baseUrl));
  const meta = await sharp(path.join(dir, 'image.webp')).metadata();
  expect([meta.format, meta.width, meta.height]).toEqual(['webp', 768, 1344]);
  const curl = mediaCode('curl', request, api.baseUrl);
  expect(curl).toContain(`curl ${api.baseUrl}/v1/images/generations`);
  const res = await api.request('POST', '/v1/images/generations', { token: key, body: curlBody(curl) });
  expect(res.status).toBe(200);
  expect(mediaCode('python', request, api.baseUrl)).toContain('client.images.generate(**{');
});

test('video: the JavaScript snippet creates the job, polls it and downloads the MP4', async () => {
  const request: MediaRequest = { category: 'video', model: 'wan-2.2', prompt: 'rain on a window' };
  await runJavaScript(mediaCode('javascript', request, api.baseUrl));
  expect(fs.readFileSync(path.join(dir, 'video.mp4')).subarray(4, 8).toString()).toBe('ftyp');
  const res = await api.request('POST', '/v1/videos', { token: key, body: curlBody(mediaCode('curl', request, api.baseUrl)) });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ object: 'video', model: 'wan-2.2' });
});

test('music has no OpenAI API: the snippet is POST /api/v2/generate, and its body is answered', async () => {
  const request: MediaRequest = { category: 'music', model: 'musicgen', prompt: 'calm piano', duration: 20 };
  const curl = mediaCode('curl', request, api.baseUrl);
  expect(curl).toContain(`curl ${api.baseUrl}/api/v2/generate`);
  const res = await api.request('POST', '/api/v2/generate', { token: key, body: curlBody(curl) });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ model_slug: 'musicgen', status: 'pending' });
});
