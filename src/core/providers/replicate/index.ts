import { MediaCapability, MediaCategory } from '../types';
import { ProviderAdapter } from '../adapter';
import { replicateFaults } from './faults';
import { replicateModelLookup } from './model-lookup';
import { createPrediction, getPrediction, settle } from './predictions';
import { reportingIgnored } from '../warnings';
import { replicateModel } from './models';
import { REPLICATE_PRICES } from './prices';

/** First-poll hints per category: queue + cold start + run time as Replicate typically shows them. */
const ETA_SECONDS: Record<MediaCategory, number> = { image: 10, video: 120, music: 45, tool: 8, tts: 10, stt: 10 };

/**
 * Replicate predictions API (`Authorization: Bearer`): create a prediction, poll it until succeeded / failed /
 * canceled, download the output files. Serves the Stable Diffusion images, the video models, musicgen and the
 * image tools; see `models.ts` for the per-slug input mapping.
 */
const media: MediaCapability = {
  async start(req, conn, signal) {
    const p = await createPrediction(req, conn, signal);
    const settled = await settle(p, req, conn, signal);
    if (settled.state === 'completed') return settled;
    if (settled.state === 'failed') throw settled.error;
    return { state: 'pending', upstreamJobId: p.id, etaSeconds: ETA_SECONDS[req.category] };
  },
  async poll(jobId, req, conn, signal) {
    return settle(await getPrediction(jobId, conn, signal), req, conn, signal);
  },
};

export const replicateAdapter: ProviderAdapter<'replicate'> = {
  name: 'replicate',
  defaultBaseUrl: 'https://api.replicate.com/v1',
  faults: replicateFaults,
  models: replicateModelLookup,
  prices: REPLICATE_PRICES,
  capabilities: { chat: false, media: ['image', 'video', 'music', 'tool'], hostedTools: [], caching: 'none', reasoning: false },
  media: reportingIgnored(media, (req) => replicateModel(req.slug).uses ?? []),
};
