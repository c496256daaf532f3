import type { ModelListing } from '../adapter';
import { upstreamJson } from '../http';
import { isObject, malformedList, orNotFound } from '../model-listing';
import type { ProviderConnection, ProviderName } from '../types';

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
const path = '/models';

/** A model object: `{id, object: "model", created, owned_by}`, and OpenAI's `shutdown_date` (the others have none). */
function modelOf(m: unknown): { id: string; shutdownAt: string | null } | null {
  if (!isObject(m) || typeof m.id !== 'string') return null;
  const date = typeof m.shutdown_date === 'string' && ISO_DAY.test(m.shutdown_date) ? m.shutdown_date : null;
  return { id: m.id, shutdownAt: date };
}

const get = (provider: ProviderName, conn: ProviderConnection, at: string) =>
  upstreamJson<unknown>(provider, conn, { method: 'GET', path: at, headers: { authorization: `Bearer ${conn.apiKey}` } });

/**
 * `GET /models` (bearer key) → `{object: "list", data: [model]}`: OpenAI, xAI and DeepSeek. OpenAI and xAI also
 * document `GET /models/{id}` (retrieve one); DeepSeek documents only the list.
 */
export function openAiStyleModelList(provider: ProviderName, options: { retrieve: boolean }): ModelListing {
  return {
    protocol: 'openai',
    path,
    list: async (conn) => {
      const body = await get(provider, conn, path);
      if (!isObject(body) || !Array.isArray(body.data)) throw malformedList(provider, 'no data array');
      const out = new Map<string, { shutdownAt: string | null }>();
      for (const m of body.data) {
        const model = modelOf(m);
        if (model) out.set(model.id, { shutdownAt: model.shutdownAt });
      }
      return out;
    },
    retrieve: options.retrieve
      ? (conn, id) =>
          orNotFound(async () => {
            const model = modelOf(await get(provider, conn, `${path}/${encodeURIComponent(id)}`));
            if (!model) throw malformedList(provider, `no model object for ${id}`);
            return model;
          })
      : null,
  };
}
