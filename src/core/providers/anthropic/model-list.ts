import type { ModelListing, VendorModels } from '../adapter';
import { upstreamJson } from '../http';
import { isObject, malformedList, MAX_LIST_PAGES, orNotFound } from '../model-listing';
import type { ProviderConnection } from '../types';

const path = '/models';

/** GET /v1/models, paged with `limit`, `after_id` while `has_more` (its `last_id` is the next cursor). */
async function listModels(conn: ProviderConnection): Promise<VendorModels> {
  const out = new Map<string, { shutdownAt: string | null }>();
  let after: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const query = new URLSearchParams({ limit: '1000', ...(after ? { after_id: after } : {}) });
    const body = await upstreamJson<unknown>('anthropic', conn, {
      method: 'GET',
      path: `${path}?${query}`,
      headers: { 'x-api-key': conn.apiKey, 'anthropic-version': '2023-06-01' },
    });
    if (!isObject(body) || !Array.isArray(body.data)) throw malformedList('anthropic', 'no data array');
    for (const m of body.data) if (isObject(m) && typeof m.id === 'string') out.set(m.id, { shutdownAt: null });
    if (body.has_more !== true || typeof body.last_id !== 'string') return out;
    after = body.last_id;
  }
  throw malformedList('anthropic', 'too many pages');
}

/** GET /v1/models/{model_id}: one model by its id or alias, answered with its own (dated) id. */
async function retrieveModel(conn: ProviderConnection, id: string) {
  return orNotFound(async () => {
    const body = await upstreamJson<unknown>('anthropic', conn, {
      method: 'GET',
      path: `${path}/${encodeURIComponent(id)}`,
      headers: { 'x-api-key': conn.apiKey, 'anthropic-version': '2023-06-01' },
    });
    if (!isObject(body) || typeof body.id !== 'string') throw malformedList('anthropic', `no model object for ${id}`);
    return { id: body.id, shutdownAt: null };
  });
}

export const anthropicModelList: ModelListing = { protocol: 'anthropic', path, list: listModels, retrieve: retrieveModel };
