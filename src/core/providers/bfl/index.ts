import { MediaCapability, ProviderError } from '../types';
import { ProviderAdapter } from '../adapter';
import { bflFaults } from './faults';
import { poll, submit } from './jobs';
import { reportingIgnored } from '../warnings';
import { BFL_PRICES } from './prices';

/**
 * Black Forest Labs FLUX API (`x-key` header): submit a task, then poll it until Ready and download the sample.
 * `start` always answers pending; the pipeline polls inline for the models the catalog runs synchronously.
 */
const media: MediaCapability = {
  start: async (req, conn, signal) => {
    if (req.category !== 'image' && req.category !== 'tool') {
      throw new ProviderError('bad_request', `bfl does not serve ${req.category}`, 'bfl');
    }
    return submit(req, conn, signal);
  },
  poll: (jobId, _req, conn, signal) => poll(jobId, conn, signal),
};

export const bflAdapter: ProviderAdapter<'bfl'> = {
  name: 'bfl',
  defaultBaseUrl: 'https://api.bfl.ai/v1',
  faults: bflFaults,
  models: null,
  prices: BFL_PRICES,
  capabilities: { chat: false, media: ['image', 'tool'], hostedTools: [], caching: 'none', reasoning: false },
  media: reportingIgnored(media, () => ['seed', 'mask']),
};
