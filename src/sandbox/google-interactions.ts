import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { failureMarkerIn, hangUntilClosed } from './failures';
import { SandboxRequest, sendJson } from './types';

/**
 * Gemini Omni in the Gemini API fake: the Interactions API (`POST /v1beta/interactions`, `GET /v1beta/interactions/{id}`)
 * with a video response format, run in the background and polled, its video a file download like Veo's. Markers in
 * the prompt: [[fail:overloaded]] 429 RESOURCE_EXHAUSTED, [[fail:timeout]] never answers, [[fail:policy]] and
 * [[fail:upstream]] an interaction that ends `failed`.
 */

/** Omni models and their longest clip (3 to 10 seconds for 1.1, 3 to 15 for 1.2). */
const OMNI_MODELS: Record<string, { maxSeconds: number }> = {
  'gemini-omni-1.1-flash': { maxSeconds: 10 },
  'gemini-omni-1.2-flash': { maxSeconds: 15 },
  'gemini-omni-flash-preview': { maxSeconds: 10 },
};
const RATIOS = ['16:9', '9:16'];
const RESOLUTIONS = ['360p', '720p', '1080p', '4k'];
const DELIVERIES = ['inline', 'uri'];
const FAILURES = ['overloaded', 'policy', 'timeout', 'upstream'] as const;
type Failure = (typeof FAILURES)[number];

interface Job {
  model: string;
  prompt: string;
  polls: number;
  failure?: Failure;
  seconds: number;
  created: string;
  fileId?: string;
}

type ErrorReply = (res: ServerResponse, code: number, message: string) => void;

function promptOf(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return undefined;
  const texts = input.filter((c: { type?: unknown; text?: unknown }) => c?.type === 'text' && typeof c.text === 'string');
  return texts.length > 0 ? texts.map((c: { text: string }) => c.text).join(' ') : undefined;
}

/** The API's refusal of a body, or undefined when it is well formed. */
function bodyProblem(body: Record<string, unknown>, maxSeconds: number): string | { seconds: number } {
  const prompt = promptOf(body.input);
  if (prompt === undefined || prompt.trim() === '') return 'input must contain a text prompt.';
  if (Array.isArray(body.input)) {
    for (const [i, c] of (body.input as Array<Record<string, unknown>>).entries()) {
      if (c?.type === 'image' && !((typeof c.data === 'string' && typeof c.mime_type === 'string') || typeof c.uri === 'string')) {
        return `input[${i}]: an image needs data and mime_type, or a uri.`;
      }
    }
  }
  const formats = Array.isArray(body.response_format) ? body.response_format : [body.response_format];
  const video = formats.find((f): f is Record<string, unknown> => typeof f === 'object' && f !== null && f.type === 'video');
  if (!video) return 'response_format must include a video format for this model.';
  if (video.aspect_ratio !== undefined && !RATIOS.includes(String(video.aspect_ratio))) {
    return `Unsupported aspect_ratio: ${String(video.aspect_ratio)}. Supported: ${RATIOS.join(', ')}.`;
  }
  if (video.resolution !== undefined && !RESOLUTIONS.includes(String(video.resolution))) {
    return `Unsupported resolution: ${String(video.resolution)}. Supported: ${RESOLUTIONS.join(', ')}.`;
  }
  if (video.delivery !== undefined && !DELIVERIES.includes(String(video.delivery))) {
    return `Unsupported delivery: ${String(video.delivery)}.`;
  }
  const duration = video.duration === undefined ? '8s' : String(video.duration);
  const seconds = /^(\d+)s$/.exec(duration)?.[1];
  if (seconds === undefined || Number(seconds) < 3 || Number(seconds) > maxSeconds) {
    return `duration must be between 3s and ${maxSeconds}s; got ${JSON.stringify(video.duration)}.`;
  }
  return { seconds: Number(seconds) };
}

export function createInteractions(options: { pendingPolls: number; files: Map<string, string>; error: ErrorReply }) {
  const jobs = new Map<string, Job>();
  const { error, files } = options;

  function view(id: string, job: Job, status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { id, model: job.model, status, created: job.created, updated: new Date().toISOString().slice(0, 19) + 'Z', ...extra };
  }

  function create(body: Record<string, unknown>, req: SandboxRequest, res: ServerResponse): void | Promise<void> {
    const model = typeof body.model === 'string' ? body.model : '';
    const spec = OMNI_MODELS[model];
    if (!spec) return error(res, 404, `models/${model} is not found for API version v1beta, or is not supported for createInteraction.`);
    const checked = bodyProblem(body, spec.maxSeconds);
    if (typeof checked === 'string') return error(res, 400, checked);
    const prompt = promptOf(body.input)!;
    const failure = failureMarkerIn(prompt, FAILURES);
    if (failure === 'overloaded') return error(res, 429, 'Resource has been exhausted (e.g. check quota).');
    if (failure === 'timeout') return hangUntilClosed(res);
    const id = `v1_${randomBytes(12).toString('base64url').replace(/-/g, 'A')}`;
    const job: Job = { model, prompt, polls: 0, failure, seconds: checked.seconds, created: new Date().toISOString().slice(0, 19) + 'Z' };
    jobs.set(id, job);
    // Without `background` the call holds until the video is done; the fake finishes it at once.
    if (body.background !== true) job.polls = options.pendingPolls;
    sendJson(res, 200, body.background === true ? view(id, job, 'in_progress') : settled(id, job, req.mountUrl));
  }

  function settled(id: string, job: Job, mountUrl: string): Record<string, unknown> {
    const userInput = { type: 'user_input', content: [{ type: 'text', text: job.prompt }] };
    if (job.failure === 'upstream')
      return view(id, job, 'failed', { errors: [{ code: 'internal', message: 'Internal error encountered.' }] });
    if (job.failure === 'policy') {
      return view(id, job, 'failed', {
        steps: [
          userInput,
          {
            type: 'model_output',
            error: {
              code: 3,
              status: 'INVALID_ARGUMENT',
              message: 'The video could not be generated: it was blocked by the safety filters (sandbox).',
            },
          },
        ],
      });
    }
    // Gemini API file names are lowercase letters and digits (the SDK's download reads them so).
    const fileId = job.fileId ?? (job.fileId = `omni${randomBytes(6).toString('hex')}`);
    files.set(fileId, `${job.model} ${job.seconds}s`);
    return view(id, job, 'completed', {
      steps: [
        userInput,
        {
          type: 'model_output',
          content: [{ type: 'video', mime_type: 'video/mp4', uri: `${mountUrl}/v1beta/files/${fileId}:download?alt=media` }],
        },
      ],
      usage: { total_input_tokens: Math.ceil(job.prompt.length / 4), total_output_tokens: job.seconds * 258 },
    });
  }

  function get(id: string, req: SandboxRequest, res: ServerResponse): void {
    const job = jobs.get(id);
    if (!job) return error(res, 404, `Interaction ${id} not found.`);
    job.polls += 1;
    if (job.polls <= options.pendingPolls) return sendJson(res, 200, view(id, job, 'in_progress'));
    sendJson(res, 200, settled(id, job, req.mountUrl));
  }

  return { create, get };
}
