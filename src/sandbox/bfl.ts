import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sharp } from '../core/media/sharp-lib';
import { parseSize } from '../core/providers/bfl/sizes';
import { syntheticImage } from './synthetic';
import { SandboxHandler, SandboxRequest, sendBytes, sendJson } from './types';
import { failureMarkerIn, hangUntilClosed } from './failures';

/**
 * In-process fake of the BFL FLUX API: POST /v1/<model> answers {id, polling_url}; GET the polling URL
 * (/v1/get_result?id=) answers Pending on the first poll, then Ready with a `sample` URL served by this fake.
 * Markers in the prompt: [[fail:overloaded]] 429 at submit, [[fail:policy]] "Request Moderated" at poll,
 * [[fail:timeout]] never answers the submit, [[fail:midstream]] drops the connection while sending the sample.
 */

const FAILURES = ['overloaded', 'policy', 'timeout', 'midstream'] as const;
type Failure = (typeof FAILURES)[number];

interface Job {
  model: string;
  width: number;
  height: number;
  prompt: string;
  seed: number;
  polls: number;
  failure?: Failure;
}

const MODELS = new Set(['flux-dev', 'flux-pro-1.1', 'flux-pro-1.1-ultra', 'flux-kontext-pro', 'flux-pro-1.0-fill']);
const SIZED = new Set(['flux-dev', 'flux-pro-1.1']);
const MAX_JOBS = 500;
const jobs = new Map<string, Job>();

function remember(id: string, job: Job): void {
  jobs.set(id, job);
  if (jobs.size > MAX_JOBS) jobs.delete(jobs.keys().next().value as string);
}

function failureIn(text: string): Failure | undefined {
  return failureMarkerIn(text, FAILURES);
}

/** FastAPI-style 422, as the API answers invalid bodies. */
function invalid(res: ServerResponse, field: string, msg: string): void {
  sendJson(res, 422, { detail: [{ loc: ['body', field], msg, type: 'value_error' }] });
}

function validSide(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 256 && n <= 1440 && n % 32 === 0;
}

async function imageSize(b64: unknown): Promise<{ width: number; height: number; transparent: boolean } | undefined> {
  if (typeof b64 !== 'string' || b64 === '') return undefined;
  try {
    const data = Buffer.from(b64, 'base64');
    const meta = await sharp(data).metadata();
    if (!meta.width || !meta.height) return undefined;
    const transparent = meta.hasAlpha === true && !(await sharp(data).stats()).isOpaque;
    return { width: meta.width, height: meta.height, transparent };
  } catch {
    return undefined;
  }
}

async function submit(req: SandboxRequest, res: ServerResponse, model: string): Promise<void> {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    sendJson(res, 422, { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
    return;
  }
  const prompt = typeof body.prompt === 'string' ? body.prompt : '';
  if (model !== 'flux-pro-1.0-fill' && prompt === '') return invalid(res, 'prompt', 'Field required');
  const failure = failureIn(prompt);
  if (failure === 'timeout') return hangUntilClosed(res);
  if (failure === 'overloaded') {
    sendJson(res, 429, { detail: 'Too Many Requests: you have exceeded your concurrent task limit (sandbox)' });
    return;
  }

  let size: { width: number; height: number };
  if (SIZED.has(model)) {
    if (!validSide(body.width)) return invalid(res, 'width', 'width must be a multiple of 32 between 256 and 1440');
    if (!validSide(body.height)) return invalid(res, 'height', 'height must be a multiple of 32 between 256 and 1440');
    size = { width: body.width, height: body.height };
  } else if (model === 'flux-pro-1.0-fill') {
    const image = await imageSize(body.image);
    if (!image) return invalid(res, 'image', 'image must be a base64-encoded image');
    // As documented: the mask is optional when the image carries one in its alpha channel.
    if (body.mask === undefined || body.mask === null) {
      if (!image.transparent) return invalid(res, 'mask', 'mask is required unless the image has an alpha mask');
    } else {
      const mask = await imageSize(body.mask);
      if (!mask) return invalid(res, 'mask', 'mask must be a base64-encoded image');
      if (mask.width !== image.width || mask.height !== image.height) {
        return invalid(res, 'mask', 'mask dimensions must match the image');
      }
    }
    size = { width: image.width, height: image.height };
  } else {
    const ratio = typeof body.aspect_ratio === 'string' ? body.aspect_ratio : '1:1';
    if (!/^\d+:\d+$/.test(ratio)) return invalid(res, 'aspect_ratio', 'aspect_ratio must look like 16:9');
    if (body.input_image !== undefined && !(await imageSize(body.input_image))) {
      return invalid(res, 'input_image', 'input_image must be a base64-encoded image');
    }
    size = parseSize(ratio);
  }

  const id = randomUUID();
  remember(id, {
    model,
    ...size,
    prompt,
    seed: typeof body.seed === 'number' ? body.seed : 42,
    polls: 0,
    failure,
  });
  sendJson(res, 200, { id, polling_url: `${req.mountUrl}/v1/get_result?id=${id}` });
}

function getResult(req: SandboxRequest, res: ServerResponse): void {
  const id = req.query.get('id') ?? '';
  const job = jobs.get(id);
  if (!job) {
    sendJson(res, 200, { id, status: 'Task not found', result: null, progress: null });
    return;
  }
  job.polls += 1;
  if (job.polls < 2) {
    sendJson(res, 200, { id, status: 'Pending', result: null, progress: 0.5 });
  } else if (job.failure === 'policy') {
    sendJson(res, 200, {
      id,
      status: 'Request Moderated',
      result: null,
      progress: null,
      details: { 'Moderation Reasons': ['sandbox policy marker'] },
    });
  } else {
    sendJson(res, 200, {
      id,
      status: 'Ready',
      result: {
        sample: `${req.mountUrl}/delivery/${id}/sample.png`,
        prompt: job.prompt,
        seed: job.seed,
        start_time: 0,
        end_time: 1,
        duration: 1,
      },
      progress: null,
    });
  }
}

async function sample(res: ServerResponse, id: string): Promise<void> {
  const job = jobs.get(id);
  if (!job) {
    sendJson(res, 404, { detail: 'Not Found' });
    return;
  }
  const png = await syntheticImage(job.width, job.height, `bfl ${job.model}: ${job.prompt.slice(0, 40)}`);
  if (job.failure === 'midstream') {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
    res.write(png.subarray(0, Math.floor(png.length / 3)));
    setTimeout(() => res.destroy(), 20);
    return;
  }
  sendBytes(res, 200, png, 'image/png');
}

export const bflSandbox: SandboxHandler = async (req, res) => {
  const delivery = /^\/delivery\/([\w-]+)\/sample\.png$/.exec(req.path);
  if (req.method === 'GET' && delivery) return sample(res, delivery[1]); // signed URL: no key needed

  const key = req.headers['x-key'];
  if (typeof key !== 'string' || key === '') {
    sendJson(res, 401, { detail: 'Not authenticated' });
    return;
  }
  if (req.method === 'GET' && req.path === '/v1/get_result') return getResult(req, res);
  const model = /^\/v1\/([\w.-]+)$/.exec(req.path)?.[1];
  if (req.method === 'POST' && model && MODELS.has(model)) return submit(req, res, model);
  sendJson(res, 404, { detail: 'Not Found' });
};
