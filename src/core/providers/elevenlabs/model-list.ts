import type { ModelListing } from '../adapter';
import { upstreamJson } from '../http';
import { fromList, isObject, malformedList } from '../model-listing';

const path = '/v1/models';

/** GET /v1/models: an array of {model_id, name, …}. */
export const elevenLabsModelList: ModelListing = {
  protocol: 'elevenlabs',
  path,
  lookup: (conn) =>
    fromList(async () => {
      const body = await upstreamJson<unknown>('elevenlabs', conn, { method: 'GET', path, headers: { 'xi-api-key': conn.apiKey } });
      if (!Array.isArray(body)) throw malformedList('elevenlabs', 'not an array');
      return new Map(
        body.filter(isObject).flatMap((m) => (typeof m.model_id === 'string' ? [[m.model_id, { shutdownAt: null }] as const] : [])),
      );
    }),
};
