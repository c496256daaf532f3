// Links without PUBLIC_URL: a generation's result_url is built from the origin of the request that created it,
// stored with it, so the API answer, the webhook event, later reads (over another host too) and the history
// show one URL; a mailed link uses the host the user came in through when that host is this machine.
import http from 'node:http';
import { startWorkers } from '../../src/jobs/workers';
import { deliveriesSettled, type Receiver, startReceiver } from '../webhooks/receiver';
import { ApiHarness, startApi } from './harness';

let api: ApiHarness;
let receiver: Receiver;

beforeAll(async () => {
  api = await startApi({ WEBHOOK_ALLOW_PRIVATE: '1' });
  await api.services.boss.start();
  await startWorkers(api.services.boss, api.services);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await api.close();
});

/** GET with a Host header of our choosing (fetch will not send one), parsed as JSON. */
function getVia(host: string, path: string, token: string): Promise<{ status: number; body: any }> {
  const { port } = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, headers: { Host: host, Authorization: `Bearer ${token}`, 'X-Forwarded-For': '10.9.8.7' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('one generation has one result_url: the API answer, its webhook, later reads over another host, the history', async () => {
  expect(api.services.config.links.publicUrl).toBeUndefined();
  const account = await api.account('basic', { planTokens: 500 });
  const token = await api.accessToken(account);
  const hook = await api.request('POST', '/api/v2/webhooks', { token, body: { url: receiver.url, events: ['generation.completed'] } });
  expect(hook.status).toBe(201);

  const image = await api.request('POST', '/api/v2/generate', {
    token,
    body: { model: 'gpt-image-2.6-flare', prompt: 'a lighthouse', size: '1024x1024' },
  });
  expect(image.body.status).toBe('completed');
  const url: string = image.body.result_url;
  // The harness talks to 127.0.0.1; the listen address would be http://localhost:3000.
  expect(url.startsWith(`${api.baseUrl}/files/`)).toBe(true);

  const [event] = await receiver.waitFor(1, (r) => JSON.parse(r.body).generation_id === image.body.id);
  expect(JSON.parse(event.body).result_url).toBe(url);
  expect((await api.request('GET', `/api/v2/generate/${image.body.id}`, { token })).body.result_url).toBe(url);
  const elsewhere = await getVia(`localhost:${new URL(api.baseUrl).port}`, `/api/v2/generate/${image.body.id}`, token);
  expect(elsewhere).toMatchObject({ status: 200, body: { result_url: url } });
  const history = await api.request('GET', '/api/v2/user/history', { token });
  expect(history.body.items.find((g: { id: number }) => g.id === image.body.id).result_url).toBe(url);
  // The link works.
  expect((await fetch(url)).status).toBe(200);

  // A generation the workers finish (no request around then) keeps the origin of the request that started it.
  const video = await api.request('POST', '/api/v2/generate', { token, body: { model: 'gemini-omni-1.1-flash', prompt: 'waves' } });
  expect(video.body.status).toBe('pending');
  const [done] = await receiver.waitFor(1, (r) => JSON.parse(r.body).generation_id === video.body.id, 30_000);
  const videoUrl: string = JSON.parse(done.body).result_url;
  expect(videoUrl.startsWith(`${api.baseUrl}/files/`)).toBe(true);
  expect((await api.request('GET', `/api/v2/generate/${video.body.id}`, { token })).body.result_url).toBe(videoUrl);
  await deliveriesSettled(api.db.dataSource, hook.body.id);
});

test('mailed links use the host the user came in through when it is this machine, never a host a header names', async () => {
  const email = `links-${Date.now()}@example.com`;
  const registered = await api.request('POST', '/api/v2/auth/register', { body: { email, password: 'long enough pw' } });
  expect(registered.status).toBe(201);
  const verification = api.mails.findLast((m) => m.to === email)!;
  expect(verification.text).toContain(`${api.baseUrl}/verify-email?token=`);

  await api.request('POST', '/api/v2/auth/forgot-password', { body: { email } });
  const reset = api.mails.findLast((m) => m.to === email)!;
  expect(reset.subject).toMatch(/reset/i);
  expect(reset.text).toContain(`${api.baseUrl}/reset-password?token=`);

  // Someone asking for a reset of another account names their own host: the link goes to the listen address.
  const before = api.mails.length;
  const poisoned = await new Promise<number>((resolve, reject) => {
    const { port } = new URL(api.baseUrl);
    const body = JSON.stringify({ email });
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/v2/auth/forgot-password',
        method: 'POST',
        headers: { Host: 'attacker.example', 'Content-Type': 'application/json', 'X-Forwarded-For': '10.7.7.7' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  expect(poisoned).toBe(202);
  expect(api.mails).toHaveLength(before + 1);
  expect(api.mails[before].text).not.toContain('attacker.example');
  expect(api.mails[before].text).toContain(`${api.services.config.links.listenOrigin}/reset-password?token=`);
});
