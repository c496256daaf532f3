import type { ModelListing } from '../adapter';
import { upstreamJson } from '../http';
import { isObject, malformedList, orNotFound } from '../model-listing';

const path = '/models';

/** Replicate has no list of its own models to ask: GET /v1/models/{owner}/{name} answers each (404: not found). */
export const replicateModelLookup: ModelListing = {
  protocol: 'replicate',
  path,
  list: null,
  retrieve: (conn, id) => {
    const [owner, name] = id.split('/');
    if (!owner || !name) return Promise.resolve(null);
    return orNotFound(async () => {
      const body = await upstreamJson<unknown>('replicate', conn, {
        method: 'GET',
        path: `${path}/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`,
        headers: { authorization: `Bearer ${conn.apiKey}` },
      });
      if (!isObject(body)) throw malformedList('replicate', `no model object for ${id}`);
      return { id: typeof body.owner === 'string' && typeof body.name === 'string' ? `${body.owner}/${body.name}` : id, shutdownAt: null };
    });
  },
};
