import {
  MediaCapability,
  MediaCategory,
  MediaOutput,
  MediaRequest,
  MediaRequestOf,
  ProviderConnection,
  ProviderError,
  ProviderName,
} from '../types';

export type MediaRunner<R extends MediaRequest = MediaRequest> = (
  req: R,
  conn: ProviderConnection,
  signal?: AbortSignal,
) => Promise<MediaOutput>;

/**
 * A media capability for a vendor that answers within the request: `start` runs the matching
 * category's runner and is always `completed`; there is never a job to poll.
 */
export function synchronousMedia(
  provider: ProviderName,
  runners: { [C in MediaCategory]?: MediaRunner<MediaRequestOf<C>> },
): MediaCapability {
  return {
    async start(req, conn, signal) {
      const run = runners[req.category] as MediaRunner | undefined;
      if (!run) throw new ProviderError('bad_request', `${provider} does not serve ${req.category} requests`, provider);
      return { state: 'completed', output: await run(req, conn, signal) };
    },
    async poll() {
      return {
        state: 'failed',
        error: new ProviderError('bad_request', `${provider} media requests complete synchronously; nothing to poll`, provider),
      };
    },
  };
}
