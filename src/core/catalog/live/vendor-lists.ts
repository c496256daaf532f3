// Each vendor's model list, read through its documented endpoint, as {upstream id -> announced shutdown}.
// Wire formats are parsed here, at the edge; the check only sees the map.
import { ProviderError, type ProviderConnection, type ProviderName } from '../../providers/types';
import { upstreamFetch, upstreamJson } from '../../providers/http';

/** What a vendor lists: each model id, with the shutdown date it announced (OpenAI's `shutdown_date`) or null. */
export type VendorModels = ReadonlyMap<string, { shutdownAt: string | null }>;

/** A vendor's answer for one model id: listed (with its shutdown), or not. */
export type VendorLookup = (upstreamId: string) => Promise<{ shutdownAt: string | null } | null>;

const MAX_PAGES = 50;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function malformed(provider: ProviderName, what: string): ProviderError {
  return new ProviderError('upstream', `${provider} model list: ${what}`, provider);
}

/** `{object: "list", data: [{id, shutdown_date?}]}`: OpenAI, xAI and DeepSeek (GET /models, bearer key). */
async function openAiStyleList(provider: ProviderName, conn: ProviderConnection): Promise<VendorModels> {
  const body = await upstreamJson<unknown>(provider, conn, {
    method: 'GET',
    path: '/models',
    headers: { authorization: `Bearer ${conn.apiKey}` },
  });
  if (!isObject(body) || !Array.isArray(body.data)) throw malformed(provider, 'no data array');
  const out = new Map<string, { shutdownAt: string | null }>();
  for (const m of body.data) {
    if (!isObject(m) || typeof m.id !== 'string') continue;
    const date = typeof m.shutdown_date === 'string' && ISO_DAY.test(m.shutdown_date) ? m.shutdown_date : null;
    out.set(m.id, { shutdownAt: date });
  }
  return out;
}

/** GET /v1/models, paged with `limit`, `after_id` while `has_more` (its `last_id` is the next cursor). */
async function anthropicList(conn: ProviderConnection): Promise<VendorModels> {
  const out = new Map<string, { shutdownAt: string | null }>();
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({ limit: '1000', ...(after ? { after_id: after } : {}) });
    const body = await upstreamJson<unknown>('anthropic', conn, {
      method: 'GET',
      path: `/models?${query}`,
      headers: { 'x-api-key': conn.apiKey, 'anthropic-version': '2023-06-01' },
    });
    if (!isObject(body) || !Array.isArray(body.data)) throw malformed('anthropic', 'no data array');
    for (const m of body.data) if (isObject(m) && typeof m.id === 'string') out.set(m.id, { shutdownAt: null });
    if (body.has_more !== true || typeof body.last_id !== 'string') return out;
    after = body.last_id;
  }
  throw malformed('anthropic', 'too many pages');
}

/** Gemini models.list: GET /models?pageSize=&pageToken= → {models: [{name: "models/<id>"}], nextPageToken}. */
async function geminiList(conn: ProviderConnection): Promise<VendorModels> {
  const out = new Map<string, { shutdownAt: string | null }>();
  let token: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({ pageSize: '1000', ...(token ? { pageToken: token } : {}) });
    const body = await upstreamJson<unknown>('google', conn, {
      method: 'GET',
      path: `/models?${query}`,
      headers: { 'x-goog-api-key': conn.apiKey },
    });
    if (!isObject(body)) throw malformed('google', 'not an object');
    for (const m of Array.isArray(body.models) ? body.models : []) {
      if (isObject(m) && typeof m.name === 'string') out.set(m.name.replace(/^models\//, ''), { shutdownAt: null });
    }
    if (typeof body.nextPageToken !== 'string' || body.nextPageToken === '') return out;
    token = body.nextPageToken;
  }
  throw malformed('google', 'too many pages');
}

/** ElevenLabs GET /v1/models: an array of {model_id, name, …}. */
async function elevenLabsList(conn: ProviderConnection): Promise<VendorModels> {
  const body = await upstreamJson<unknown>('elevenlabs', conn, {
    method: 'GET',
    path: '/v1/models',
    headers: { 'xi-api-key': conn.apiKey },
  });
  if (!Array.isArray(body)) throw malformed('elevenlabs', 'not an array');
  return new Map(
    body.filter(isObject).flatMap((m) => (typeof m.model_id === 'string' ? [[m.model_id, { shutdownAt: null }] as const] : [])),
  );
}

/** Replicate has no list of its own models to ask: GET /v1/models/{owner}/{name} answers 200 or 404 per model. */
function replicateLookup(conn: ProviderConnection): VendorLookup {
  return async (upstreamId) => {
    const [owner, name] = upstreamId.split('/');
    if (!owner || !name) return null;
    try {
      const res = await upstreamFetch('replicate', conn, {
        method: 'GET',
        path: `/models/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`,
        headers: { authorization: `Bearer ${conn.apiKey}` },
      });
      await res.arrayBuffer();
      return { shutdownAt: null };
    } catch (err) {
      if (err instanceof ProviderError && err.upstreamStatus === 404) return null;
      throw err;
    }
  };
}

/** How to ask a vendor about its models; undefined for vendors without a list (BFL, the local OCR). */
export function vendorLookup(provider: ProviderName, conn: ProviderConnection): VendorLookup | undefined {
  const fromList = (load: () => Promise<VendorModels>): VendorLookup => {
    let listed: Promise<VendorModels> | undefined;
    return async (id) => {
      listed ??= load();
      return (await listed).get(id) ?? null;
    };
  };
  switch (provider) {
    case 'openai':
    case 'xai':
    case 'deepseek':
      return fromList(() => openAiStyleList(provider, conn));
    case 'anthropic':
      return fromList(() => anthropicList(conn));
    case 'google':
      return fromList(() => geminiList(conn));
    case 'elevenlabs':
      return fromList(() => elevenLabsList(conn));
    case 'replicate':
      return replicateLookup(conn);
    default:
      return undefined;
  }
}
