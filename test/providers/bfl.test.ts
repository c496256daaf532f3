import sharp from 'sharp';
import { bflAdapter } from '../../src/core/providers/bfl';
import { pollUrl } from '../../src/core/providers/bfl/jobs';
import { MediaPoll, MediaRequest, ProviderConnection, ProviderError } from '../../src/core/providers/types';
import { bflSandbox } from '../../src/sandbox/bfl';
import { fixtureReader, recordingFetch, SentRequest, useVendorSandbox } from '../support/vendor-sandbox';
import { waitUntil } from '../support/wait';

const media = bflAdapter.media!;
const bfl = useVendorSandbox(bflAdapter, bflSandbox);
let sent: SentRequest[];
let conn: ProviderConnection;

beforeEach(() => {
  sent = [];
  conn = bfl.conn({ fetch: recordingFetch(sent) });
});

function request(over: Partial<MediaRequest>): MediaRequest {
  return { category: 'image', slug: 'flux-dev', upstreamModel: 'flux-dev', prompt: 'a lighthouse at dusk', ...over };
}

async function pollUntilDone(jobId: string, req: MediaRequest, c = conn): Promise<{ result: MediaPoll; polls: number }> {
  for (let polls = 1; polls <= 6; polls++) {
    const result = await media.poll(jobId, req, c);
    if (result.state !== 'pending') return { result, polls };
  }
  throw new Error('still pending after 6 polls');
}

async function pngSize(data: Buffer): Promise<[number | undefined, number | undefined]> {
  const meta = await sharp(data).metadata();
  return [meta.width, meta.height];
}

describe('bfl adapter against the sandbox', () => {
  it('submits flux-dev with x-key, width/height and seed, then polls Pending -> Ready and downloads the sample', async () => {
    const req = request({ size: '768x1344', seed: 7 });
    const start = await media.start(req, conn);
    expect(start.state).toBe('pending');
    if (start.state !== 'pending') return;
    expect(start.upstreamJobId).toMatch(/\/bfl\/v1\/get_result\?id=[\w-]+$/);

    expect(sent[0].method).toBe('POST');
    expect(new URL(sent[0].url).pathname).toBe('/bfl/v1/flux-dev');
    expect(sent[0].headers['x-key']).toBe('test-key');
    expect(sent[0].body).toEqual({ prompt: 'a lighthouse at dusk', width: 768, height: 1344, seed: 7, output_format: 'png' });

    const { result, polls } = await pollUntilDone(start.upstreamJobId, req);
    expect(polls).toBe(2); // the fake answers Pending once
    expect(result.state).toBe('completed');
    if (result.state !== 'completed') return;
    expect(result.output.seed).toBe(7);
    expect(result.output.files).toHaveLength(1);
    expect(result.output.files[0].mime).toBe('image/png');
    expect(await pngSize(result.output.files[0].data)).toEqual([768, 1344]);

    const download = sent[sent.length - 1];
    expect(new URL(download.url).pathname).toMatch(/^\/bfl\/delivery\//);
    expect(download.headers['x-key']).toBeUndefined(); // the signed sample URL gets no key
  });

  it('scales size-set-B sizes into the 1440 box flux-pro-1.1 accepts', async () => {
    const req = request({ slug: 'flux-pro-1.1', upstreamModel: 'flux-pro-1.1', size: '1536x1024' });
    const start = await media.start(req, conn);
    expect(sent[0].body).toMatchObject({ width: 1440, height: 960 });
    if (start.state !== 'pending') throw new Error('expected pending');
    const { result } = await pollUntilDone(start.upstreamJobId, req);
    if (result.state !== 'completed') throw new Error(`expected completed, got ${result.state}`);
    expect(await pngSize(result.output.files[0].data)).toEqual([1440, 960]);
  });

  it('sends aspect_ratio (no width/height) to flux-pro-1.1-ultra', async () => {
    const req = request({ slug: 'flux-pro-1.1-ultra', upstreamModel: 'flux-pro-1.1-ultra', size: '16:9' });
    const start = await media.start(req, conn);
    expect(sent[0].body).toEqual({ prompt: 'a lighthouse at dusk', aspect_ratio: '16:9', output_format: 'png' });
    expect(start.state === 'pending' && start.etaSeconds).toBeGreaterThan(0);
  });

  it('sends the edit image as base64 input_image to flux-kontext-pro', async () => {
    const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080' } })
      .png()
      .toBuffer();
    const req = request({
      slug: 'flux-kontext-pro',
      upstreamModel: 'flux-kontext-pro',
      size: '1024x1024',
      images: [{ data: image, mime: 'image/png' }],
    });
    const start = await media.start(req, conn);
    expect(sent[0].body).toMatchObject({ aspect_ratio: '1:1', input_image: image.toString('base64') });
    if (start.state !== 'pending') throw new Error('expected pending');
    const { result } = await pollUntilDone(start.upstreamJobId, req);
    expect(result.state).toBe('completed');
  });

  it('sends image + mask for inpainting and returns an image of the input size', async () => {
    const image = await sharp({ create: { width: 320, height: 256, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const mask = await sharp({ create: { width: 320, height: 256, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    const req = request({
      category: 'tool',
      slug: 'inpaint',
      upstreamModel: 'flux-pro-1.0-fill',
      prompt: 'a red door',
      images: [{ data: image, mime: 'image/png' }],
      mask: { data: mask, mime: 'image/png' },
    });
    const start = await media.start(req, conn);
    expect(new URL(sent[0].url).pathname).toBe('/bfl/v1/flux-pro-1.0-fill');
    expect(sent[0].body).toMatchObject({ prompt: 'a red door', image: image.toString('base64'), mask: mask.toString('base64') });
    if (start.state !== 'pending') throw new Error('expected pending');
    const { result } = await pollUntilDone(start.upstreamJobId, req);
    if (result.state !== 'completed') throw new Error(`expected completed, got ${result.state}`);
    expect(await pngSize(result.output.files[0].data)).toEqual([320, 256]);
  });

  it('refuses inpainting without a mask before calling BFL', async () => {
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const req = request({
      category: 'tool',
      slug: 'inpaint',
      upstreamModel: 'flux-pro-1.0-fill',
      images: [{ data: image, mime: 'image/png' }],
    });
    await expect(media.start(req, conn)).rejects.toMatchObject({ kind: 'bad_request' });
    expect(sent).toHaveLength(0);
  });

  describe('failures', () => {
    it('a missing key is an auth error', async () => {
      await expect(media.start(request({}), { ...conn, apiKey: '' })).rejects.toMatchObject({
        kind: 'auth',
        upstreamStatus: 401,
      });
    });

    it('429 at submit is rate_limited', async () => {
      const err = await media.start(request({ prompt: 'x [[fail:overloaded]]' }), conn).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err).toMatchObject({ kind: 'rate_limited', upstreamStatus: 429, provider: 'bfl' });
    });

    it('"Request Moderated" at poll is a content_policy failure', async () => {
      const req = request({ prompt: 'x [[fail:policy]]' });
      const start = await media.start(req, conn);
      if (start.state !== 'pending') throw new Error('expected pending');
      const { result } = await pollUntilDone(start.upstreamJobId, req);
      expect(result.state).toBe('failed');
      if (result.state === 'failed') {
        expect(result.error.kind).toBe('content_policy');
        expect(result.error.message).toMatch(/Request Moderated/);
      }
    });

    it('a submit that never answers is a timeout', async () => {
      await expect(media.start(request({ prompt: '[[fail:timeout]]' }), { ...conn, timeoutMs: 300 })).rejects.toMatchObject({
        kind: 'timeout',
      });
    });

    it('a sample download that breaks off is an upstream error', async () => {
      const req = request({ prompt: '[[fail:midstream]]' });
      const start = await media.start(req, conn);
      if (start.state !== 'pending') throw new Error('expected pending');
      await media.poll(start.upstreamJobId, req, conn); // Pending
      await expect(media.poll(start.upstreamJobId, req, conn)).rejects.toMatchObject({ kind: 'upstream' });
    });

    it('aborting the caller signal aborts the submit', async () => {
      const ctrl = new AbortController();
      const pending = media.start(request({ prompt: '[[fail:timeout]]' }), conn, ctrl.signal);
      // The caller goes away while the submit waits on the vendor.
      await waitUntil(() => bfl.received.length > 0, 5000, 'the submit to reach the vendor');
      ctrl.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      expect(await bfl.whenClosed(0)).toBe(true);
    });
  });
});

describe('bfl polling URL', () => {
  const base: ProviderConnection = {
    apiKey: 'k',
    baseUrl: 'https://api.bfl.ai/v1',
    sandbox: false,
    fetch,
    timeoutMs: 1000,
    faults: bflAdapter.faults,
  };

  it('follows regional BFL polling URLs', () => {
    expect(pollUrl('https://api.us1.bfl.ai/v1/get_result?id=abc', base)).toBe('https://api.us1.bfl.ai/v1/get_result?id=abc');
  });

  it('never sends the key to a foreign host: falls back to the base URL with the id', () => {
    expect(pollUrl('https://evil.example/v1/get_result?id=abc', base)).toBe('https://api.bfl.ai/v1/get_result?id=abc');
    expect(pollUrl('http://api.bfl.ai/v1/get_result?id=abc', base)).toBe('https://api.bfl.ai/v1/get_result?id=abc');
  });

  it('polls a bare task id at <base>/get_result', () => {
    expect(pollUrl('task 1', base)).toBe('https://api.bfl.ai/v1/get_result?id=task%201');
  });
});

describe('bfl adapter replaying documented payloads', () => {
  const fixture = fixtureReader('bfl');
  const json = (body: string, status = 200) => new Response(body, { status, headers: { 'content-type': 'application/json' } });

  function stub(routes: Array<(url: URL, init?: RequestInit) => Response | undefined>): { fetch: typeof fetch; log: SentRequest[] } {
    const log: SentRequest[] = [];
    const inner: typeof fetch = async (input, init) => {
      const url = new URL(String(input));
      for (const route of routes) {
        const res = route(url, init);
        if (res) return res;
      }
      return new Response('not stubbed', { status: 599 });
    };
    return { fetch: recordingFetch(log, inner), log };
  }

  const realConn = (f: typeof fetch): ProviderConnection => ({
    apiKey: 'real-key',
    baseUrl: bflAdapter.defaultBaseUrl,
    sandbox: false,
    fetch: f,
    timeoutMs: 2000,
    faults: bflAdapter.faults,
  });

  it('submit -> Pending -> Ready -> signed sample download', async () => {
    const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    const polls = [fixture('result-pending.json'), fixture('result-ready.json')];
    const { fetch: f, log } = stub([
      (u, init) =>
        init?.method === 'POST' && u.href === 'https://api.bfl.ai/v1/flux-dev' ? json(fixture('submit-response.json')) : undefined,
      (u) => (u.hostname === 'api.us1.bfl.ai' && u.pathname === '/v1/get_result' ? json(polls.shift() as string) : undefined),
      (u) =>
        u.hostname === 'bfldeliveryprod.blob.core.windows.net'
          ? new Response(png, { headers: { 'content-type': 'image/png' } })
          : undefined,
    ]);
    const c = realConn(f);
    const req = request({});
    const start = await media.start(req, c);
    expect(start).toMatchObject({
      state: 'pending',
      upstreamJobId: 'https://api.us1.bfl.ai/v1/get_result?id=b9b172a8-e39c-47b2-8f1a-cb8925f3532e',
    });
    expect(await media.poll((start as { upstreamJobId: string }).upstreamJobId, req, c)).toEqual({ state: 'pending' });
    const done = await media.poll((start as { upstreamJobId: string }).upstreamJobId, req, c);
    expect(done.state).toBe('completed');
    if (done.state !== 'completed') return;
    expect(done.output.seed).toBe(1234567890);
    expect(done.output.files[0].data.equals(png)).toBe(true);
    expect(log.filter((s) => s.url.includes('get_result')).every((s) => s.headers['x-key'] === 'real-key')).toBe(true);
    expect(log[log.length - 1].headers['x-key']).toBeUndefined();
  });

  it.each([
    ['result-request-moderated.json', 'content_policy', /Request Moderated/],
    ['result-error.json', 'upstream', /Error description/],
  ])('%s maps to a %s failure', async (name, kind, message) => {
    const { fetch: f } = stub([(u) => (u.pathname === '/v1/get_result' ? json(fixture(name)) : undefined)]);
    const result = await media.poll('task_456', request({}), realConn(f));
    expect(result.state).toBe('failed');
    if (result.state === 'failed') {
      expect(result.error.kind).toBe(kind);
      expect(result.error.message).toMatch(message);
    }
  });

  it('a 422 validation error at submit is bad_request', async () => {
    const { fetch: f } = stub([() => json(fixture('validation-error-422.json'), 422)]);
    await expect(media.start(request({}), realConn(f))).rejects.toMatchObject({ kind: 'bad_request', upstreamStatus: 422 });
  });
});
