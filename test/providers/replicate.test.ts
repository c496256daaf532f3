import sharp from 'sharp';
import { replicateAdapter } from '../../src/core/providers/replicate';
import { REPLICATE_MODELS, REPLICATE_VERSIONS } from '../../src/core/providers/replicate/models';
import { InputFile, MediaPoll, MediaRequest, ProviderConnection, ProviderError } from '../../src/core/providers/types';
import { replicateSandbox } from '../../src/sandbox/replicate';
import { fixtureReader, recordingFetch, SentRequest, useVendorSandbox } from '../support/vendor-sandbox';

const media = replicateAdapter.media!;
const replicate = useVendorSandbox(replicateAdapter, replicateSandbox);
let sent: SentRequest[];
let conn: ProviderConnection;
let photo: InputFile;
let face: InputFile;

beforeAll(async () => {
  photo = {
    data: await sharp({ create: { width: 64, height: 48, channels: 3, background: '#777' } })
      .png()
      .toBuffer(),
    mime: 'image/png',
  };
  face = {
    data: await sharp({ create: { width: 40, height: 40, channels: 3, background: '#c96' } })
      .jpeg()
      .toBuffer(),
    mime: 'image/jpeg',
  };
});
beforeEach(() => {
  sent = [];
  conn = replicate.conn({ fetch: recordingFetch(sent) });
});

const pathOf = (s: SentRequest) => new URL(s.url).pathname;

async function run(req: MediaRequest, c = conn): Promise<{ result: MediaPoll; polls: number }> {
  const start = await media.start(req, c);
  if (start.state === 'completed') return { result: start, polls: 0 };
  expect(start.etaSeconds).toBeGreaterThan(0);
  for (let polls = 1; polls <= 6; polls++) {
    const result = await media.poll(start.upstreamJobId, req, c);
    if (result.state !== 'pending') return { result, polls };
  }
  throw new Error('still pending after 6 polls');
}

function completed(result: MediaPoll) {
  if (result.state !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(result)}`);
  return result.output;
}

async function dims(file: InputFile): Promise<[number | undefined, number | undefined]> {
  const meta = await sharp(file.data).metadata();
  return [meta.width, meta.height];
}

describe('replicate adapter against the sandbox', () => {
  it('creates an SDXL prediction with the pinned version and walks starting -> processing -> succeeded', async () => {
    const req: MediaRequest = {
      category: 'image',
      slug: 'sdxl',
      upstreamModel: 'stability-ai/sdxl',
      prompt: 'a fox in snow',
      negativePrompt: 'blurry',
      size: '768x1344',
      seed: 3,
    };
    const { result, polls } = await run(req);
    expect(polls).toBe(2);
    expect(sent[0].method).toBe('POST');
    expect(pathOf(sent[0])).toBe('/replicate/v1/predictions');
    expect(sent[0].headers.authorization).toBe('Bearer test-key');
    expect(sent[0].body).toEqual({
      version: REPLICATE_VERSIONS.sdxl,
      input: { prompt: 'a fox in snow', negative_prompt: 'blurry', width: 768, height: 1344, num_outputs: 1, seed: 3 },
    });
    expect(pathOf(sent[1])).toMatch(/^\/replicate\/v1\/predictions\/\w+$/);
    const output = completed(result);
    expect(output.files).toHaveLength(1);
    expect(output.files[0].mime).toBe('image/png');
    expect(await dims(output.files[0])).toEqual([768, 1344]);
  });

  it('creates official models on /models/{owner}/{name}/predictions without a version', async () => {
    const req: MediaRequest = {
      category: 'image',
      slug: 'sd-3.5-large',
      upstreamModel: 'stability-ai/stable-diffusion-3.5-large',
      prompt: 'a castle',
      size: '2:3',
    };
    const output = completed((await run(req)).result);
    expect(pathOf(sent[0])).toBe('/replicate/v1/models/stability-ai/stable-diffusion-3.5-large/predictions');
    expect(sent[0].body?.version).toBeUndefined();
    expect(sent[0].body?.input).toMatchObject({ prompt: 'a castle', aspect_ratio: '2:3', output_format: 'png' });
    const [w, h] = await dims(output.files[0]);
    expect((w as number) / (h as number)).toBeCloseTo(2 / 3, 1);
  });

  it('sends tool images as data URIs: upscale with scale 4 returns a 4x image', async () => {
    const req: MediaRequest = { category: 'tool', slug: 'upscale', upstreamModel: 'nightmareai/real-esrgan', images: [photo], scale: 4 };
    const output = completed((await run(req)).result);
    expect(sent[0].body).toEqual({
      version: REPLICATE_VERSIONS.realEsrgan,
      input: { image: `data:image/png;base64,${photo.data.toString('base64')}`, scale: 4, face_enhance: false },
    });
    expect(await dims(output.files[0])).toEqual([256, 192]);
  });

  it('a 15 MB input goes through the files API and the prediction gets its urls.get, not a data URI', async () => {
    // Stored without compression, a flat image is as large as a noisy one and costs no CPU to make (noise took
    // seconds, and under load the fake's answer then outlived the test connection's timeouts).
    const big = await sharp({ create: { width: 2300, height: 2300, channels: 3, background: '#000' } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(big.length).toBeGreaterThan(15_000_000);
    const req: MediaRequest = {
      category: 'tool',
      slug: 'colorize',
      upstreamModel: 'piddnad/ddcolor',
      images: [{ data: big, mime: 'image/png' }],
    };
    const output = completed((await run(req)).result);
    expect(pathOf(sent[0])).toBe('/replicate/v1/files');
    expect(sent[0].form?.content).toEqual({ name: 'input.png', size: big.length, type: 'image/png' });
    const image = (sent[1].body?.input as { image: string }).image;
    expect(image).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/replicate\/v1\/files\/\w+$/);
    expect(JSON.stringify(sent[1].body)).not.toContain('data:');
    expect(await dims(output.files[0])).toEqual([2300, 2300]);
  }, 60_000);

  it('inputs up to 10 MB together stay inline data URIs (no upload)', async () => {
    const req: MediaRequest = { category: 'tool', slug: 'colorize', upstreamModel: 'piddnad/ddcolor', images: [photo] };
    await run(req);
    expect(sent.some((s) => pathOf(s).endsWith('/files'))).toBe(false);
  });

  it('face-swap puts the source face into the target photo', async () => {
    const req: MediaRequest = { category: 'tool', slug: 'face-swap', upstreamModel: 'codeplugtech/face-swap', images: [face, photo] };
    const output = completed((await run(req)).result);
    expect(sent[0].body?.input).toEqual({
      input_image: `data:image/png;base64,${photo.data.toString('base64')}`,
      swap_image: `data:image/jpeg;base64,${face.data.toString('base64')}`,
    });
    expect(await dims(output.files[0])).toEqual([64, 48]);
  });

  it('musicgen gets prompt, duration, model_version and output_format and returns an mp3', async () => {
    const req: MediaRequest = {
      category: 'music',
      slug: 'musicgen',
      upstreamModel: 'meta/musicgen',
      prompt: 'calm piano',
      durationSeconds: 20,
    };
    const output = completed((await run(req)).result);
    expect(sent[0].body?.input).toEqual({
      prompt: 'calm piano',
      duration: 20,
      model_version: 'stereo-large',
      output_format: 'mp3',
      normalization_strategy: 'peak',
    });
    expect(output.files[0].mime).toBe('audio/mpeg');
    expect(output.files[0].data[0]).toBe(0xff); // MPEG frame sync
    expect(output.durationSeconds).toBe(20);
  });

  it('video models return an mp4; kling needs a start image and is refused without one', async () => {
    await expect(
      media.start({ category: 'video', slug: 'kling-v2.1', upstreamModel: 'kwaivgi/kling-v2.1', prompt: 'waves' }, conn),
    ).rejects.toMatchObject({ kind: 'bad_request' });
    expect(sent).toHaveLength(0);

    const req: MediaRequest = {
      category: 'video',
      slug: 'kling-v2.1',
      upstreamModel: 'kwaivgi/kling-v2.1',
      prompt: 'waves',
      images: [photo],
      durationSeconds: 10,
    };
    const output = completed((await run(req)).result);
    expect(pathOf(sent[0])).toBe('/replicate/v1/models/kwaivgi/kling-v2.1/predictions');
    expect(sent[0].body?.input).toMatchObject({
      prompt: 'waves',
      duration: 10,
      start_image: expect.stringMatching(/^data:image\/png;base64,/),
    });
    expect(output.files[0].mime).toBe('video/mp4');
    expect(output.files[0].data.subarray(4, 8).toString('ascii')).toBe('ftyp');
  });

  it.each([
    ['hailuo-02', { prompt: 'p', duration: 6, resolution: '768p' }],
    ['wan-2.2', { prompt: 'p', aspect_ratio: '9:16', num_frames: 81, frames_per_second: 16 }],
    ['seedance-1-pro', { prompt: 'p', duration: 5, aspect_ratio: '9:16' }],
  ])('%s maps its documented inputs', async (slug, expected) => {
    const req: MediaRequest = { category: 'video', slug, upstreamModel: slug, prompt: 'p', size: '9:16' };
    completed((await run(req)).result);
    expect(sent[0].body?.input).toMatchObject(expected);
  });

  it('every catalog slug in the table is accepted by the fake end to end', async () => {
    const extra: Record<string, Partial<MediaRequest>> = {
      'style-transfer': { prompt: 'oil painting' },
      'face-swap': { images: [face, photo] },
    };
    for (const slug of Object.keys(REPLICATE_MODELS)) {
      const req: MediaRequest = { category: 'tool', slug, upstreamModel: slug, prompt: 'sandbox check', images: [photo], ...extra[slug] };
      const output = completed((await run(req)).result);
      expect(output.files[0].data.length).toBeGreaterThan(0);
    }
  });

  describe('failures', () => {
    const sdxl: MediaRequest = { category: 'image', slug: 'sdxl', upstreamModel: 'stability-ai/sdxl', prompt: 'x' };

    it('a missing token is an auth error', async () => {
      await expect(media.start(sdxl, { ...conn, apiKey: '' })).rejects.toMatchObject({ kind: 'auth', upstreamStatus: 401 });
    });

    it('429 throttling is rate_limited', async () => {
      const err = await media.start({ ...sdxl, prompt: '[[fail:overloaded]]' }, conn).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err).toMatchObject({ kind: 'rate_limited', upstreamStatus: 429 });
    });

    it('a prediction failed with E005 is a content_policy failure', async () => {
      const { result } = await run({ ...sdxl, prompt: '[[fail:policy]]' });
      expect(result.state).toBe('failed');
      if (result.state === 'failed') {
        expect(result.error.kind).toBe('content_policy');
        expect(result.error.message).toMatch(/E005/);
      }
    });

    it('a create that never answers is a timeout', async () => {
      await expect(media.start({ ...sdxl, prompt: '[[fail:timeout]]' }, { ...conn, timeoutMs: 300 })).rejects.toMatchObject({
        kind: 'timeout',
      });
    });

    it('an output download that breaks off is an upstream error', async () => {
      await expect(run({ ...sdxl, prompt: '[[fail:midstream]]' })).rejects.toMatchObject({ kind: 'upstream' });
    });

    it('a canceled prediction is a failed job', async () => {
      const start = await media.start(sdxl, conn);
      if (start.state !== 'pending') throw new Error('expected pending');
      await fetch(`${conn.baseUrl}/predictions/${start.upstreamJobId}/cancel`, { method: 'POST', headers: { authorization: 'Bearer k' } });
      const result = await media.poll(start.upstreamJobId, sdxl, conn);
      expect(result).toMatchObject({ state: 'failed', error: { kind: 'upstream' } });
    });
  });
});

describe('replicate adapter replaying documented payloads', () => {
  const fixture = fixtureReader('replicate');
  const json = (body: string, status = 200) => new Response(body, { status, headers: { 'content-type': 'application/json' } });
  const req: MediaRequest = { category: 'tool', slug: 'upscale', upstreamModel: 'nightmareai/real-esrgan', images: [] };

  function connWith(inner: typeof fetch, log: SentRequest[]): ProviderConnection {
    return {
      apiKey: 'r8_real',
      baseUrl: replicateAdapter.defaultBaseUrl,
      sandbox: false,
      fetch: recordingFetch(log, inner),
      timeoutMs: 2000,
      faults: replicateAdapter.faults,
    };
  }

  it('starting -> succeeded, downloading replicate.delivery output without the token', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const log: SentRequest[] = [];
    const c = connWith(async (input, init) => {
      const url = new URL(String(input));
      if (url.hostname === 'replicate.delivery') return new Response(png, { headers: { 'content-type': 'image/png' } });
      if (init?.method === 'POST') return json(fixture('prediction-starting.json'), 201);
      return json(fixture('prediction-succeeded.json'));
    }, log);
    const start = await media.start({ ...req, images: [photo] }, c);
    expect(start).toMatchObject({ state: 'pending', upstreamJobId: 'gm3qorzdhgbfurvjtvhg6dckhu' });
    const result = await media.poll('gm3qorzdhgbfurvjtvhg6dckhu', req, c);
    const output = completed(result);
    expect(output.files[0].data.equals(png)).toBe(true);
    expect(output.files[0].filename).toBe('output.png');
    expect(log[1].url).toBe('https://api.replicate.com/v1/predictions/gm3qorzdhgbfurvjtvhg6dckhu');
    expect(log[1].headers.authorization).toBe('Bearer r8_real');
    expect(log[2].url).toMatch(/^https:\/\/replicate\.delivery\//);
    expect(log[2].headers.authorization).toBeUndefined();
  });

  it('the E005 failure maps to content_policy', async () => {
    const result = await media.poll(
      'x',
      req,
      connWith(async () => json(fixture('prediction-failed-e005.json')), []),
    );
    expect(result).toMatchObject({ state: 'failed', error: { kind: 'content_policy' } });
  });

  it.each([
    ['error-401.json', 401, 'auth', /valid authentication token/],
    ['error-429.json', 429, 'rate_limited', /throttled/],
  ])('%s (HTTP %i) is %s', async (name, status, kind, message) => {
    const err = await media
      .poll(
        'x',
        req,
        connWith(async () => json(fixture(name), status), []),
      )
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind, upstreamStatus: status });
    expect((err as Error).message).toMatch(message);
  });
});
