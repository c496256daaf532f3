import { reasoningEnvelope } from '../../../core/generations/chat/reasoning-envelope';
import type { ApiServices } from '../../api-services';
import { describeError } from '../../middleware/errors';
import type { SseChannel } from '../../sse';
import { toChatInput } from './request';
import { endedResponse, responseFrame, writeResponseStream } from './response';
import { responsesBody } from './schema';

// A background response's run (the job `response-run`): as the key and account that asked for it, with the same
// limits, hold and settlement as any answer. Its cancel is seen within a moment; the vendor call then stops and what
// it wrote is billed.

export type BackgroundServices = Pick<ApiServices, 'chat' | 'config' | 'responses' | 'log'>;

/** How often a running background response looks whether it was cancelled. */
const CANCEL_POLL_MS = 200;

/** Runs a queued background response to its end (completed, incomplete, failed or cancelled). */
export async function runBackgroundResponse(services: BackgroundServices, id: string): Promise<void> {
  const claimed = await services.responses.claim(id);
  if (!claimed) {
    // Not queued: cancelled or deleted meanwhile, or taken by a run that stopped with its process (a retry finds it
    // running): that one ends now, failed.
    const now = await services.responses.byId(id);
    if (now?.status === 'in_progress') {
      const error = { code: 'server_error', message: 'The service stopped while answering; the response was not completed.' };
      await services.responses.finish(id, { ...now.response, status: 'failed', error });
    }
    return;
  }
  const model = String(claimed.response.model);
  const request = claimed.request ?? {};
  const body = responsesBody.parse(request);
  const envelope = reasoningEnvelope(services.config.reasoningSecret);
  const createdAt = typeof request.created_at === 'number' ? request.created_at : Math.floor(Date.now() / 1000);
  const frame = responseFrame(body, envelope, { id, createdAt });
  const fail = (code: string, message: string) => services.responses.finish(id, endedResponse(frame, model, 'failed', { code, message }));

  let actor;
  try {
    actor = await services.responses.actorOf(claimed);
  } catch (err) {
    await fail('invalid_request_error', (err as Error).message);
    return;
  }
  const abort = new AbortController();
  const poll = setInterval(() => {
    services.responses
      .cancelRequested(id)
      .then((cancelled) => cancelled && abort.abort())
      .catch(() => undefined);
  }, CANCEL_POLL_MS);
  try {
    const { input } = toChatInput(body, envelope);
    const stream = await services.chat.stream(actor, input, { source: 'v1', ownOrigins: [] }, abort.signal);
    // No client listens: the events go nowhere, and a cancel stops the reading (which stops the vendor call).
    const open = () => !abort.signal.aborted;
    const sink: SseChannel = { write: open, event: open, data: open, close: () => undefined };
    const stored = await writeResponseStream(frame, stream, sink);
    await services.responses.finish(id, abort.signal.aborted ? { ...stored, status: 'cancelled' } : stored);
  } catch (err) {
    if (abort.signal.aborted) await services.responses.finish(id, endedResponse(frame, model, 'cancelled', null));
    else {
      const d = describeError(err);
      if (d.status >= 500) services.log.warn({ err, response: id }, 'a background response failed');
      await fail(d.status >= 500 ? 'server_error' : d.code, d.message);
    }
  } finally {
    clearInterval(poll);
  }
}
