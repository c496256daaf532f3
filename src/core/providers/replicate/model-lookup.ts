import type { ModelListing } from '../adapter';
import { upstreamFetch } from '../http';
import { ProviderError } from '../types';

const path = '/models';

/** Replicate has no list of its own models to ask: GET /v1/models/{owner}/{name} answers 200 or 404 per model. */
export const replicateModelLookup: ModelListing = {
  protocol: 'replicate',
  path,
  lookup: (conn) => async (upstreamId) => {
    const [owner, name] = upstreamId.split('/');
    if (!owner || !name) return null;
    try {
      const res = await upstreamFetch('replicate', conn, {
        method: 'GET',
        path: `${path}/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`,
        headers: { authorization: `Bearer ${conn.apiKey}` },
      });
      await res.arrayBuffer();
      return { shutdownAt: null };
    } catch (err) {
      if (err instanceof ProviderError && err.upstreamStatus === 404) return null;
      throw err;
    }
  },
};
