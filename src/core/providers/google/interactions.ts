import { upstreamBytes, upstreamJson } from '../http';
import { MediaPoll, MediaStart, ProviderConnection, ProviderError, VideoRequest } from '../types';
import { nearestRatio, VIDEO_RATIOS } from './aspect';
import { googleHeaders } from './auth';
import { statusError } from './errors';
import { googleFaultKind } from './faults';
import { Interaction, interaction } from './wire';

/** The clip length when the request names none (the catalog offers 4 to 15 seconds and sends the one ordered). */
const DEFAULT_SECONDS = 8;

/** States in which the interaction is still working; any other but `completed` ended it without a video. */
const RUNNING = new Set(['in_progress', 'queued']);

function parse(raw: unknown): Interaction {
  const parsed = interaction.safeParse(raw);
  if (!parsed.success) throw new ProviderError('upstream', 'google answered with an unexpected interaction shape', 'google');
  return parsed.data;
}

/** The documented body: the prompt (and a first frame) as input, a video response format, run in the background. */
export function buildOmniBody(req: VideoRequest): Record<string, unknown> {
  if (!req.prompt) throw new ProviderError('bad_request', 'a prompt is required', 'google');
  const image = req.images?.[0];
  const input = image
    ? [
        { type: 'text', text: req.prompt },
        { type: 'image', data: image.data.toString('base64'), mime_type: image.mime },
      ]
    : req.prompt;
  const format: Record<string, unknown> = {
    type: 'video',
    duration: `${req.durationSeconds ?? DEFAULT_SECONDS}s`,
    delivery: 'uri',
  };
  const aspectRatio = nearestRatio(req.size, VIDEO_RATIOS);
  if (aspectRatio) format.aspect_ratio = aspectRatio;
  return { model: req.upstreamModel, input, response_format: format, background: true };
}

/** Gemini Omni: `POST /interactions` in the background answers an interaction whose id is the job we poll. */
export async function omniStart(req: VideoRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaStart> {
  const created = parse(
    await upstreamJson<unknown>('google', conn, { path: '/interactions', headers: googleHeaders(conn), body: buildOmniBody(req), signal }),
  );
  return { state: 'pending', upstreamJobId: created.id, etaSeconds: 90 };
}

/** Why an interaction ended without a video, as one of our error kinds. */
function endedError(ended: Interaction): ProviderError {
  const stepError = ended.steps?.find((s) => s.error)?.error;
  if (stepError) return statusError(stepError);
  const first = ended.errors?.[0];
  const message = first?.message ?? `the interaction ended ${ended.status}`;
  return new ProviderError(googleFaultKind({ message }), `google: ${message}`, 'google');
}

/** Same origin as the API base: only then does the download get our key. */
function sameOrigin(uri: string, baseUrl: string): boolean {
  try {
    return new URL(uri).origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
}

async function poll(id: string, req: VideoRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaPoll> {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) {
    return { state: 'failed', error: new ProviderError('bad_request', `not a google interaction id: ${id}`, 'google') };
  }
  const current = parse(await upstreamJson<unknown>('google', conn, { path: `/interactions/${id}`, headers: googleHeaders(conn), signal }));
  if (RUNNING.has(current.status)) return { state: 'pending' };
  if (current.status !== 'completed') return { state: 'failed', error: endedError(current) };
  const video = current.steps
    ?.filter((s) => s.type === 'model_output')
    .flatMap((s) => s.content ?? [])
    .find((c) => c.type === 'video' && (c.uri || c.data));
  if (!video)
    return { state: 'failed', error: new ProviderError('upstream', 'google completed the interaction without a video', 'google') };
  const seconds = req.durationSeconds ?? DEFAULT_SECONDS;
  if (video.data) {
    return {
      state: 'completed',
      output: { files: [{ data: Buffer.from(video.data, 'base64'), mime: video.mime_type ?? 'video/mp4' }], durationSeconds: seconds },
    };
  }
  // A download that fails after the client's own retries fails the job: the interaction is done.
  try {
    const file = await upstreamBytes('google', conn, {
      path: video.uri!,
      headers: sameOrigin(video.uri!, conn.baseUrl) ? googleHeaders(conn) : {},
      signal,
    });
    const mime = file.mime?.startsWith('video/') ? file.mime : (video.mime_type ?? 'video/mp4');
    return { state: 'completed', output: { files: [{ data: file.data, mime }], durationSeconds: seconds } };
  } catch (err) {
    if (signal?.aborted || !(err instanceof ProviderError)) throw err;
    const kind = err.kind === 'timeout' ? 'timeout' : 'upstream';
    return {
      state: 'failed',
      error: new ProviderError(kind, `google video download failed: ${err.message}`, 'google', err.upstreamStatus),
    };
  }
}

/**
 * Polls the interaction; non-retryable HTTP failures (a refused key, an unknown interaction) end the job as failed,
 * retryable ones are thrown so the caller polls again later.
 */
export async function omniPoll(id: string, req: VideoRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaPoll> {
  try {
    return await poll(id, req, conn, signal);
  } catch (err) {
    if (err instanceof ProviderError && !err.retryable) return { state: 'failed', error: err };
    throw err;
  }
}
