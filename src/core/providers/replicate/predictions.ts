import { upstreamJson } from '../http';
import { MediaOutput, MediaPoll, MediaRequest, ProviderConnection, ProviderError } from '../types';
import { replicateModel } from './models';
import { downloadOutput, outputUrls } from './outputs';
import { fileRefs } from './uploads';
import { Prediction, prediction } from './wire';

const auth = (conn: ProviderConnection) => ({ authorization: `Bearer ${conn.apiKey}` });

function parse(raw: unknown): Prediction {
  const parsed = prediction.safeParse(raw);
  if (!parsed.success) throw new ProviderError('upstream', 'replicate answered without a prediction', 'replicate');
  return parsed.data;
}

/** Creates the prediction on the endpoint the model needs (official model, or pinned version). */
export async function createPrediction(req: MediaRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<Prediction> {
  const model = replicateModel(req.slug);
  const input = model.input(req, await fileRefs(req, conn, signal));
  const target = model.target;
  const raw = await upstreamJson<unknown>('replicate', conn, {
    method: 'POST',
    path: target.kind === 'official' ? `/models/${target.model}/predictions` : '/predictions',
    headers: auth(conn),
    body: target.kind === 'official' ? { input } : { version: target.version, input },
    signal,
  });
  return parse(raw);
}

export async function getPrediction(id: string, conn: ProviderConnection, signal?: AbortSignal): Promise<Prediction> {
  const raw = await upstreamJson<unknown>('replicate', conn, {
    method: 'GET',
    path: `/predictions/${encodeURIComponent(id)}`,
    headers: auth(conn),
    signal,
  });
  return parse(raw);
}

function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object') return JSON.stringify(error).slice(0, 300);
  return '';
}

/** Replicate's safety checker fails predictions with E005 ("flagged as sensitive"); older models say NSFW. */
export function isPolicyFailure(message: string): boolean {
  return /\bE005\b|flagged as sensitive|nsfw|safety (checker|filter)|content (policy|moderation)/i.test(message);
}

async function completedOutput(p: Prediction, req: MediaRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaOutput> {
  const urls = outputUrls(p.output);
  if (urls.length === 0) throw new ProviderError('upstream', 'replicate prediction succeeded without an output file', 'replicate');
  const files = [];
  for (const url of urls) files.push(await downloadOutput(conn, url, signal));
  return {
    files,
    durationSeconds: req.category === 'music' ? Math.round(Math.min(120, Math.max(1, req.durationSeconds ?? 30))) : undefined,
  };
}

/** Maps a prediction's status onto our poll states; succeeded downloads every output file. */
export async function settle(p: Prediction, req: MediaRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaPoll> {
  switch (p.status) {
    case 'succeeded':
      return { state: 'completed', output: await completedOutput(p, req, conn, signal) };
    case 'failed': {
      const message = errorText(p.error) || 'prediction failed';
      const kind = isPolicyFailure(message) ? 'content_policy' : 'upstream';
      return { state: 'failed', error: new ProviderError(kind, `replicate: ${message}`, 'replicate') };
    }
    case 'canceled':
      return { state: 'failed', error: new ProviderError('upstream', 'replicate: the prediction was canceled', 'replicate') };
    default:
      return { state: 'pending' }; // starting, processing
  }
}
