import { upstreamBytes, upstreamJson } from '../http';
import { MediaPoll, VideoRequest, MediaStart, ProviderConnection, ProviderError } from '../types';
import { VEO_RATIOS, nearestRatio } from './aspect';
import { googleHeaders, modelPath } from './auth';
import { statusError } from './errors';
import { veoOperation } from './wire';

/** Veo 3's default clip length; the catalog offers 4, 6 or 8 seconds and sends the one ordered. */
const DEFAULT_SECONDS = 8;

function eta(model: string): number {
  return model.includes('fast') ? 45 : 90;
}

/** Veo: `predictLongRunning` answers an operation; its name is the job id we poll. */
export async function veoStart(req: VideoRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaStart> {
  if (!req.prompt) throw new ProviderError('bad_request', 'a prompt is required', 'google');
  const instance: Record<string, unknown> = { prompt: req.prompt };
  const image = req.images?.[0];
  if (image) instance.image = { bytesBase64Encoded: image.data.toString('base64'), mimeType: image.mime };
  const parameters: Record<string, unknown> = {};
  const aspectRatio = nearestRatio(req.size, VEO_RATIOS);
  if (aspectRatio) parameters.aspectRatio = aspectRatio;
  if (req.negativePrompt) parameters.negativePrompt = req.negativePrompt;
  parameters.durationSeconds = req.durationSeconds ?? DEFAULT_SECONDS;

  const raw = await upstreamJson<unknown>('google', conn, {
    path: `${modelPath(req.upstreamModel)}:predictLongRunning`,
    headers: googleHeaders(conn),
    body: { instances: [instance], parameters },
    signal,
  });
  const name = (raw as { name?: unknown } | null)?.name;
  if (typeof name !== 'string' || name === '') {
    throw new ProviderError('upstream', 'google answered predictLongRunning without an operation name', 'google');
  }
  return { state: 'pending', upstreamJobId: name, etaSeconds: eta(req.upstreamModel) };
}

/** Same origin as the API base: only then does the download get our key (the docs send it with the URI). */
function sameOrigin(uri: string, baseUrl: string): boolean {
  try {
    return new URL(uri).origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
}

async function poll(name: string, req: VideoRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaPoll> {
  if (!/^[A-Za-z0-9._/-]+$/.test(name) || name.includes('..')) {
    return { state: 'failed', error: new ProviderError('bad_request', `not a google operation name: ${name}`, 'google') };
  }
  const raw = await upstreamJson<unknown>('google', conn, { path: `/${name}`, headers: googleHeaders(conn), signal });
  const parsed = veoOperation.safeParse(raw);
  if (!parsed.success) throw new ProviderError('upstream', 'google answered with an unexpected operation shape', 'google');
  const op = parsed.data;
  if (!op.done) return { state: 'pending' };
  if (op.error) return { state: 'failed', error: statusError(op.error) };

  const result = op.response?.generateVideoResponse;
  const uri = result?.generatedSamples?.find((s) => s.video?.uri)?.video?.uri;
  if (!uri) {
    if ((result?.raiMediaFilteredCount ?? 0) > 0) {
      const reasons = result?.raiMediaFilteredReasons?.join(' ') || 'the video was filtered';
      return { state: 'failed', error: new ProviderError('content_policy', reasons, 'google') };
    }
    return { state: 'failed', error: new ProviderError('upstream', 'google finished the operation without a video', 'google') };
  }
  // The URI answers with a redirect to the file's storage location; the client follows it. A download that
  // still fails (after the client's own retries) fails the job: the operation is done and polling again
  // would only repeat the same download.
  let video: Awaited<ReturnType<typeof upstreamBytes>>;
  try {
    video = await upstreamBytes('google', conn, {
      path: uri,
      headers: sameOrigin(uri, conn.baseUrl) ? googleHeaders(conn) : {},
      signal,
    });
  } catch (err) {
    if (signal?.aborted || !(err instanceof ProviderError)) throw err;
    return {
      state: 'failed',
      error: new ProviderError(
        err.kind === 'timeout' ? 'timeout' : 'upstream',
        `google video download failed: ${err.message}`,
        'google',
        err.upstreamStatus,
      ),
    };
  }
  const mime = video.mime?.startsWith('video/') ? video.mime : 'video/mp4';
  return {
    state: 'completed',
    output: { files: [{ data: video.data, mime }], durationSeconds: req.durationSeconds ?? DEFAULT_SECONDS },
  };
}

/**
 * Polls the operation; non-retryable HTTP failures (a refused key, an unknown operation) end the job as failed,
 * retryable ones are thrown so the caller polls again later.
 */
export async function veoPoll(name: string, req: VideoRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaPoll> {
  try {
    return await poll(name, req, conn, signal);
  } catch (err) {
    if (err instanceof ProviderError && !err.retryable) return { state: 'failed', error: err };
    throw err;
  }
}
