import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sharp } from '../core/media/sharp-lib';
import { fromDataUri } from '../core/providers/replicate/data-uri';
import { REPLICATE_VERSIONS } from '../core/providers/replicate/models';
import { syntheticImage, syntheticMp3, syntheticMp4, syntheticWav } from './synthetic';
import { SandboxHandler, SandboxRequest, sendBytes, sendJson } from './types';
import { failureMarkerIn, hangUntilClosed } from './failures';

/**
 * In-process fake of the Replicate predictions API. POST /v1/models/{owner}/{name}/predictions (official models)
 * and POST /v1/predictions {version} create a prediction in `starting`; GET /v1/predictions/{id} moves it to
 * `processing`, then `succeeded` with output URLs served by this fake under /delivery/. Markers in `input.prompt`:
 * [[fail:overloaded]] 429 throttled, [[fail:policy]] failed with E005, [[fail:timeout]] never answers the create,
 * [[fail:midstream]] drops the connection while sending the output file.
 */

const FAILURES = ['overloaded', 'policy', 'timeout', 'midstream'] as const;
type Failure = (typeof FAILURES)[number];
type Kind = 'image' | 'video' | 'audio';

interface OutputSpec {
  kind: Kind;
  /** Output is an array of URLs (sdxl, style-transfer) rather than one URL. */
  array: boolean;
  width: number;
  height: number;
  seconds: number;
  ext: string;
}

interface Job {
  id: string;
  model: string;
  version: string | null;
  input: Record<string, unknown>;
  createdAt: string;
  polls: number;
  canceled: boolean;
  failure?: Failure;
  spec: OutputSpec;
}

type Input = Record<string, unknown>;
type Planner = (input: Input) => Promise<OutputSpec | string>; // a string is a validation message

const OFFICIAL = new Set([
  'stability-ai/stable-diffusion-3.5-large',
  'kwaivgi/kling-v2.1',
  'minimax/hailuo-02',
  'wan-video/wan-2.2-t2v-fast',
  'bytedance/seedance-1-pro',
]);

const VERSIONED: Record<string, string> = {
  [REPLICATE_VERSIONS.sdxl]: 'stability-ai/sdxl',
  [REPLICATE_VERSIONS.musicgen]: 'meta/musicgen',
  [REPLICATE_VERSIONS.realEsrgan]: 'nightmareai/real-esrgan',
  [REPLICATE_VERSIONS.faceSwap]: 'codeplugtech/face-swap',
  [REPLICATE_VERSIONS.backgroundRemover]: '851-labs/background-remover',
  [REPLICATE_VERSIONS.styleTransfer]: 'fofr/style-transfer',
  [REPLICATE_VERSIONS.ddcolor]: 'piddnad/ddcolor',
};

const image = (width: number, height: number, array = false): OutputSpec => ({
  kind: 'image',
  array,
  width,
  height,
  seconds: 0,
  ext: 'png',
});
const video = (): OutputSpec => ({ kind: 'video', array: false, width: 0, height: 0, seconds: 0, ext: 'mp4' });

/** Files uploaded through `POST /v1/files`, by id; predictions accept their `urls.get` as input. */
const uploads = new Map<string, { data: Buffer; mime: string }>();
const MAX_UPLOADS = 16;

function inputFile(value: string): { data: Buffer; mime: string } | undefined {
  const uploaded = /\/v1\/files\/(\w+)$/.exec(value);
  return uploaded ? uploads.get(uploaded[1]) : fromDataUri(value);
}

/** `POST /v1/files`: multipart with the bytes in `content` (and optional `metadata` JSON), answered 201. */
async function createFile(req: SandboxRequest, res: ServerResponse): Promise<void> {
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(req.body), {
      headers: { 'content-type': String(req.headers['content-type'] ?? '') },
    }).formData();
  } catch {
    return problem(res, 400, 'Bad request', 'The request body must be multipart/form-data.');
  }
  const content = form.get('content');
  if (!(content instanceof Blob)) return problem(res, 422, 'Input validation failed', 'content: a file is required');
  const data = Buffer.from(await content.arrayBuffer());
  const id = randomBytes(12).toString('hex');
  uploads.set(id, { data, mime: content.type || 'application/octet-stream' });
  if (uploads.size > MAX_UPLOADS) uploads.delete(uploads.keys().next().value as string);
  const url = `${req.mountUrl}/v1/files/${id}`;
  const now = new Date();
  sendJson(res, 201, {
    id,
    name: content instanceof File ? content.name : 'file',
    content_type: content.type || 'application/octet-stream',
    size: data.length,
    etag: createHash('md5').update(data).digest('hex'),
    checksums: { sha256: createHash('sha256').update(data).digest('hex'), md5: createHash('md5').update(data).digest('hex') },
    metadata: {},
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
    urls: { get: url },
  });
}

async function imageDims(value: unknown): Promise<{ width: number; height: number } | undefined> {
  const file = typeof value === 'string' ? inputFile(value) : undefined;
  if (!file) return undefined;
  try {
    const meta = await sharp(file.data).metadata();
    return meta.width && meta.height ? { width: meta.width, height: meta.height } : undefined;
  } catch {
    return undefined;
  }
}

function ratioDims(value: unknown, fallback: string): { width: number; height: number } {
  const m = /^(\d+):(\d+)$/.exec(typeof value === 'string' ? value : fallback) ?? ['', '1', '1'];
  const r = Number(m[1]) / Number(m[2]);
  const height = Math.round(Math.sqrt((1024 * 1024) / r) / 8) * 8;
  return { width: Math.round((height * r) / 8) * 8, height };
}

const needsPrompt = (input: Input) => (typeof input.prompt === 'string' && input.prompt !== '' ? undefined : 'prompt is required');

/** An image input that must be a decodable image; answers the validation message otherwise. */
async function requireImage(input: Input, field: string): Promise<{ width: number; height: number } | string> {
  return (await imageDims(input[field])) ?? `${field}: a readable image file is required`;
}

const PLANNERS: Record<string, Planner> = {
  'stability-ai/sdxl': async (input) => {
    const missing = needsPrompt(input);
    if (missing) return missing;
    const w = typeof input.width === 'number' ? input.width : 1024;
    const h = typeof input.height === 'number' ? input.height : 1024;
    return image(w, h, true);
  },
  'stability-ai/stable-diffusion-3.5-large': async (input) =>
    needsPrompt(input) ?? { ...image(0, 0), ...ratioDims(input.aspect_ratio, '1:1') },
  'kwaivgi/kling-v2.1': async (input) => {
    const missing = needsPrompt(input);
    if (missing) return missing;
    const start = await requireImage(input, 'start_image');
    return typeof start === 'string' ? start : video();
  },
  'minimax/hailuo-02': async (input) => needsPrompt(input) ?? video(),
  'wan-video/wan-2.2-t2v-fast': async (input) => needsPrompt(input) ?? video(),
  'bytedance/seedance-1-pro': async (input) => needsPrompt(input) ?? video(),
  'meta/musicgen': async (input) => {
    const missing = needsPrompt(input);
    if (missing) return missing;
    const seconds = typeof input.duration === 'number' && input.duration > 0 ? input.duration : 8;
    const ext = input.output_format === 'mp3' ? 'mp3' : 'wav';
    return { kind: 'audio', array: false, width: 0, height: 0, seconds, ext };
  },
  'nightmareai/real-esrgan': async (input) => {
    const src = await requireImage(input, 'image');
    if (typeof src === 'string') return src;
    const scale = typeof input.scale === 'number' ? input.scale : 4;
    const cap = Math.min(scale, 2048 / Math.max(src.width, src.height)); // keep sandbox files small
    return image(Math.round(src.width * cap), Math.round(src.height * cap));
  },
  'codeplugtech/face-swap': async (input) => {
    const target = await requireImage(input, 'input_image');
    if (typeof target === 'string') return target;
    const face = await requireImage(input, 'swap_image');
    return typeof face === 'string' ? face : image(target.width, target.height);
  },
  '851-labs/background-remover': async (input) => {
    const src = await requireImage(input, 'image');
    return typeof src === 'string' ? src : image(src.width, src.height);
  },
  'fofr/style-transfer': async (input) => {
    const style = await requireImage(input, 'style_image');
    if (typeof style === 'string') return style;
    const structure = input.structure_image === undefined ? style : await requireImage(input, 'structure_image');
    return typeof structure === 'string' ? structure : image(structure.width, structure.height, true);
  },
  'piddnad/ddcolor': async (input) => {
    const src = await requireImage(input, 'image');
    return typeof src === 'string' ? src : image(src.width, src.height);
  },
};

const MAX_JOBS = 500;
const jobs = new Map<string, Job>();

function remember(job: Job): void {
  jobs.set(job.id, job);
  if (jobs.size > MAX_JOBS) jobs.delete(jobs.keys().next().value as string);
}

function failureIn(input: Input): Failure | undefined {
  return failureMarkerIn(typeof input.prompt === 'string' ? input.prompt : '', FAILURES);
}

function problem(res: ServerResponse, status: number, title: string, detail: string): void {
  sendJson(res, status, { title, detail, status });
}

function outputUrls(job: Job, mountUrl: string): string | string[] {
  const url = `${mountUrl}/delivery/${job.id}/out-0.${job.spec.ext}`;
  return job.spec.array ? [url] : url;
}

function view(job: Job, mountUrl: string): Record<string, unknown> {
  const done = job.canceled || job.polls >= 2;
  const failed = !job.canceled && done && job.failure === 'policy';
  const status = job.canceled ? 'canceled' : !done ? (job.polls === 0 ? 'starting' : 'processing') : failed ? 'failed' : 'succeeded';
  const api = `${mountUrl}/v1/predictions/${job.id}`;
  return {
    id: job.id,
    model: job.model,
    version: job.version ?? 'hidden',
    input: job.input,
    logs: job.polls > 0 ? 'sandbox: running\n' : '',
    output: status === 'succeeded' ? outputUrls(job, mountUrl) : null,
    error: failed ? 'The input or output was flagged as sensitive. Please try again with different inputs. (E005)' : null,
    status,
    source: 'api',
    data_removed: false,
    created_at: job.createdAt,
    started_at: job.polls > 0 ? job.createdAt : null,
    completed_at: done ? new Date().toISOString() : null,
    metrics: done ? { predict_time: 1.5, total_time: 2 } : {},
    urls: { get: api, cancel: `${api}/cancel`, web: `https://replicate.com/p/${job.id}` },
  };
}

async function create(req: SandboxRequest, res: ServerResponse, official: string | undefined): Promise<void> {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return problem(res, 400, 'Invalid JSON', 'The request body is not valid JSON');
  }
  const input = body.input && typeof body.input === 'object' ? (body.input as Input) : undefined;
  if (!input) return problem(res, 422, 'Input validation failed', '- input: input is required');

  let model = official;
  let version: string | null = null;
  if (!model) {
    const raw = typeof body.version === 'string' ? body.version : '';
    version = raw.includes(':') ? raw.split(':')[1] : raw;
    model = VERSIONED[version] ?? (OFFICIAL.has(raw) ? raw : undefined);
    if (OFFICIAL.has(raw)) version = null;
    if (!model) return problem(res, 422, 'Invalid version', 'Invalid version or not permitted');
  }

  const failure = failureIn(input);
  if (failure === 'timeout') return hangUntilClosed(res);
  if (failure === 'overloaded') {
    sendJson(res, 429, { detail: 'Request was throttled. Expected available in 1 second.' }, { 'retry-after': '1' });
    return;
  }
  const plan = await PLANNERS[model](input);
  if (typeof plan === 'string') return problem(res, 422, 'Input validation failed', `- input: ${plan}`);

  const job: Job = {
    id: randomUUID().replace(/-/g, '').slice(0, 26),
    model,
    version,
    input,
    createdAt: new Date().toISOString(),
    polls: 0,
    canceled: false,
    failure,
    spec: plan,
  };
  remember(job);
  sendJson(res, 201, view(job, req.mountUrl));
}

async function deliver(res: ServerResponse, id: string): Promise<void> {
  const job = jobs.get(id);
  if (!job) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
  const label = `replicate ${job.model}`;
  let data: Buffer;
  let mime: string;
  if (job.spec.kind === 'image') {
    data = await syntheticImage(job.spec.width, job.spec.height, label);
    mime = 'image/png';
  } else if (job.spec.kind === 'video') {
    data = syntheticMp4();
    mime = 'video/mp4';
  } else {
    data = job.spec.ext === 'mp3' ? syntheticMp3(job.spec.seconds) : syntheticWav(job.spec.seconds);
    mime = job.spec.ext === 'mp3' ? 'audio/mpeg' : 'audio/wav';
  }
  if (job.failure === 'midstream') {
    res.writeHead(200, { 'content-type': mime, 'content-length': data.length });
    res.write(data.subarray(0, Math.floor(data.length / 3)));
    setTimeout(() => res.destroy(), 20);
    return;
  }
  sendBytes(res, 200, data, mime);
}

function authorized(req: SandboxRequest): boolean {
  const header = req.headers.authorization;
  return typeof header === 'string' && /^(Bearer|Token) \S+/.test(header);
}

export const replicateSandbox: SandboxHandler = async (req, res) => {
  const delivery = /^\/delivery\/(\w+)\/out-0\.\w+$/.exec(req.path);
  if (req.method === 'GET' && delivery) return deliver(res, delivery[1]);
  if (!authorized(req)) return problem(res, 401, 'Unauthenticated', 'You did not pass a valid authentication token');

  const official = /^\/v1\/models\/([\w.-]+\/[\w.-]+)\/predictions$/.exec(req.path)?.[1];
  if (req.method === 'POST' && official) {
    if (!OFFICIAL.has(official)) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
    return create(req, res, official);
  }
  if (req.method === 'POST' && req.path === '/v1/predictions') return create(req, res, undefined);
  if (req.method === 'POST' && req.path === '/v1/files') return createFile(req, res);

  const one = /^\/v1\/predictions\/(\w+)(\/cancel)?$/.exec(req.path);
  const job = one ? jobs.get(one[1]) : undefined;
  if (one && !job) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
  if (job && req.method === 'GET' && !one?.[2]) {
    if (!job.canceled) job.polls += 1;
    return sendJson(res, 200, view(job, req.mountUrl));
  }
  if (job && req.method === 'POST' && one?.[2]) {
    if (job.polls < 2) job.canceled = true;
    return sendJson(res, 200, view(job, req.mountUrl));
  }
  problem(res, 404, 'Not found', 'The requested resource could not be found.');
};
