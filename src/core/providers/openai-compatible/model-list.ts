import type { ModelListing } from '../adapter';
import { upstreamJson } from '../http';
import { fromList, isObject, malformedList } from '../model-listing';
import type { ProviderName } from '../types';

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `GET /models` (bearer key) → `{object: "list", data: [{id, shutdown_date?}]}`: OpenAI, xAI and DeepSeek. */
export function openAiStyleModelList(provider: ProviderName): ModelListing {
  const path = '/models';
  return {
    protocol: 'openai',
    path,
    lookup: (conn) =>
      fromList(async () => {
        const body = await upstreamJson<unknown>(provider, conn, {
          method: 'GET',
          path,
          headers: { authorization: `Bearer ${conn.apiKey}` },
        });
        if (!isObject(body) || !Array.isArray(body.data)) throw malformedList(provider, 'no data array');
        const out = new Map<string, { shutdownAt: string | null }>();
        for (const m of body.data) {
          if (!isObject(m) || typeof m.id !== 'string') continue;
          const date = typeof m.shutdown_date === 'string' && ISO_DAY.test(m.shutdown_date) ? m.shutdown_date : null;
          out.set(m.id, { shutdownAt: date });
        }
        return out;
      }),
  };
}
