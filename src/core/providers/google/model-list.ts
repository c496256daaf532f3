import type { ModelListing, VendorModels } from '../adapter';
import { upstreamJson } from '../http';
import { isObject, malformedList, MAX_LIST_PAGES, orNotFound } from '../model-listing';
import type { ProviderConnection } from '../types';

const path = '/models';

/** Gemini models.list: GET /models?pageSize=&pageToken= → {models: [{name: "models/<id>"}], nextPageToken}. */
async function listModels(conn: ProviderConnection): Promise<VendorModels> {
  const out = new Map<string, { shutdownAt: string | null }>();
  let token: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const query = new URLSearchParams({ pageSize: '1000', ...(token ? { pageToken: token } : {}) });
    const body = await upstreamJson<unknown>('google', conn, {
      method: 'GET',
      path: `${path}?${query}`,
      headers: { 'x-goog-api-key': conn.apiKey },
    });
    if (!isObject(body)) throw malformedList('google', 'not an object');
    for (const m of Array.isArray(body.models) ? body.models : []) {
      if (isObject(m) && typeof m.name === 'string') out.set(m.name.replace(/^models\//, ''), { shutdownAt: null });
    }
    if (typeof body.nextPageToken !== 'string' || body.nextPageToken === '') return out;
    token = body.nextPageToken;
  }
  throw malformedList('google', 'too many pages');
}

/** models.get: GET /models/{id} → {name: "models/<id>", ...}. */
async function retrieveModel(conn: ProviderConnection, id: string) {
  return orNotFound(async () => {
    const body = await upstreamJson<unknown>('google', conn, {
      method: 'GET',
      path: `${path}/${encodeURIComponent(id)}`,
      headers: { 'x-goog-api-key': conn.apiKey },
    });
    if (!isObject(body) || typeof body.name !== 'string') throw malformedList('google', `no model object for ${id}`);
    return { id: body.name.replace(/^models\//, ''), shutdownAt: null };
  });
}

export const geminiModelList: ModelListing = { protocol: 'gemini', path, list: listModels, retrieve: retrieveModel };
