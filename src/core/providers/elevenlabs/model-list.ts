import type { ModelListing } from '../adapter';
import { upstreamJson } from '../http';
import { isObject, malformedList } from '../model-listing';

const path = '/v1/models';

/**
 * GET /v1/models: an array of {model_id, name, can_do_text_to_speech, can_do_voice_conversion, …}. The API reference
 * documents it as the list of the voice models; it does not say that Scribe (speech-to-text) or Eleven Music are on
 * it, so only the speech models are checked against it. ElevenLabs documents no "retrieve a model".
 */
export const elevenLabsModelList: ModelListing = {
  protocol: 'elevenlabs',
  path,
  categories: ['tts'],
  list: async (conn) => {
    const body = await upstreamJson<unknown>('elevenlabs', conn, { method: 'GET', path, headers: { 'xi-api-key': conn.apiKey } });
    if (!Array.isArray(body)) throw malformedList('elevenlabs', 'not an array');
    return new Map(
      body.filter(isObject).flatMap((m) => (typeof m.model_id === 'string' ? [[m.model_id, { shutdownAt: null }] as const] : [])),
    );
  },
  retrieve: null,
};
