import { upstreamJson } from '../http';
import { MediaPoll, MediaRequest, MediaStart, ProviderConnection, ProviderError } from '../types';
import { downloadSample } from './download';
import { buildSubmitBody, etaSeconds } from './request';
import { ResultResponse, resultResponse, submitResponse } from './wire';

const keyHeader = (conn: ProviderConnection) => ({ 'x-key': conn.apiKey });

/** Submits the task; the job id we keep is the polling URL BFL returns (regional), or the bare task id. */
export async function submit(req: MediaRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaStart> {
  const raw = await upstreamJson<unknown>('bfl', conn, {
    method: 'POST',
    path: `/${req.upstreamModel}`,
    headers: keyHeader(conn),
    body: buildSubmitBody(req),
    signal,
  });
  const parsed = submitResponse.safeParse(raw);
  if (!parsed.success) throw new ProviderError('upstream', 'bfl answered the submit without a task id', 'bfl');
  return {
    state: 'pending',
    upstreamJobId: parsed.data.polling_url || parsed.data.id,
    etaSeconds: etaSeconds(req.upstreamModel),
  };
}

/**
 * Where to poll. The polling URL is only followed (with our key) when it points at BFL or at the configured
 * base URL's host; anything else falls back to `<base>/get_result?id=`, so a tampered job id cannot leak the key.
 */
export function pollUrl(jobId: string, conn: ProviderConnection): string {
  if (!/^https?:\/\//i.test(jobId)) return `${conn.baseUrl}/get_result?id=${encodeURIComponent(jobId)}`;
  const url = new URL(jobId);
  const base = new URL(conn.baseUrl);
  const bflHost = url.protocol === 'https:' && /(^|\.)bfl\.(ai|ml)$/i.test(url.hostname);
  if (url.origin === base.origin || bflHost) return url.toString();
  const id = url.searchParams.get('id');
  if (!id) throw new ProviderError('bad_request', 'bfl job id is not a usable polling URL', 'bfl');
  return `${conn.baseUrl}/get_result?id=${encodeURIComponent(id)}`;
}

function failureMessage(body: ResultResponse): string {
  const detail = body.details ?? body.error;
  if (typeof detail === 'string') return detail;
  if (detail && typeof detail === 'object') return JSON.stringify(detail).slice(0, 300);
  return '';
}

/** Maps one `get_result` answer onto our poll states; Ready downloads `result.sample`. */
export async function poll(jobId: string, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaPoll> {
  const raw = await upstreamJson<unknown>('bfl', conn, {
    method: 'GET',
    path: pollUrl(jobId, conn),
    headers: keyHeader(conn),
    signal,
  });
  const parsed = resultResponse.safeParse(raw);
  if (!parsed.success) throw new ProviderError('upstream', 'bfl answered the poll without a status', 'bfl');
  const body = parsed.data;
  const detail = failureMessage(body);
  switch (body.status) {
    case 'Ready': {
      const sample = body.result?.sample;
      if (!sample) throw new ProviderError('upstream', 'bfl reported Ready without a result sample', 'bfl');
      const file = await downloadSample(conn, sample, signal);
      return { state: 'completed', output: { files: [file], seed: body.result?.seed } };
    }
    case 'Request Moderated':
    case 'Content Moderated':
      return {
        state: 'failed',
        error: new ProviderError('content_policy', `bfl: ${body.status}${detail ? ` ${detail}` : ''}`, 'bfl'),
      };
    case 'Error':
    case 'Failed':
      return { state: 'failed', error: new ProviderError('upstream', `bfl task failed${detail ? `: ${detail}` : ''}`, 'bfl') };
    case 'Task not found':
      return { state: 'failed', error: new ProviderError('upstream', 'bfl no longer knows this task (expired?)', 'bfl') };
    default:
      return { state: 'pending' }; // Pending, and any in-progress status BFL may add
  }
}
