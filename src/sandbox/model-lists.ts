import type { ServerResponse } from 'node:http';
import { MODELS } from '../core/catalog/models';
import type { ModelListProtocol, ProviderAdapter } from '../core/providers/adapter';
import type { ProviderName } from '../core/providers/types';
import { sendJson, type SandboxHandler, type SandboxRequest } from './types';

// Each vendor fake's model-list endpoint, in the documented shape its definition names (`models.protocol`), at
// its path, listing the catalog's upstream ids of that vendor as the vendor lists them (plus a few of its other
// models), and its documented "retrieve a model" where it has one. Tests can have a fake announce a shutdown date
// for a model (OpenAI's `shutdown_date`), stop serving one, leave one out of its list while it still answers, or
// answer its list empty or with an error, as vendors do.

const EXTRA: Partial<Record<ProviderName, string[]>> = {
  openai: ['text-embedding-3-small', 'omni-moderation-latest', 'gpt-realtime-2.1-mini', 'whisper-1'],
  anthropic: ['claude-3-haiku-20240307'],
  google: ['text-embedding-004', 'aqa'],
  xai: ['grok-2-vision-1212'],
  elevenlabs: ['eleven_turbo_v2_5', 'eleven_english_sts_v2'],
  replicate: ['black-forest-labs/flux-schnell'],
};

// The ids the vendors list for the aliases the catalog sends: Anthropic lists dated snapshots (the alias answers
// its "get a model" with the snapshot), xAI names its release (its docs give grok-4.20-non-reasoning as an alias).
const VENDOR_IDS: Partial<Record<ProviderName, Record<string, string>>> = {
  anthropic: { 'claude-haiku-4-5': 'claude-haiku-4-5-20251001' },
  xai: { 'grok-4.20-non-reasoning': 'grok-4.20-0309-non-reasoning' },
};

// ElevenLabs documents GET /v1/models as its voice models: Scribe and Eleven Music are not on it.
const LISTED_CATEGORIES: Partial<Record<ProviderName, readonly string[]>> = { elevenlabs: ['tts'] };

// The shutdown dates OpenAI's list already announces for catalog models (its deprecations page); tests add more.
const VENDOR_ANNOUNCED: ReadonlyMap<string, string> = new Map([
  ['openai:whisper-1', '2027-02-26'],
  ['openai:gpt-4o-transcribe', '2027-02-26'],
]);
const announced = new Map<string, string>();
const unlisted = new Set<string>();
const omitted = new Set<string>();
const broken = new Map<ProviderName, 'empty' | 'error'>();
const keyOf = (vendor: ProviderName, id: string) => `${vendor}:${id}`;

/** What the fakes list (for tests). Ids are the catalog's upstream ids. */
export const sandboxModelLists = {
  announceShutdown(vendor: ProviderName, upstreamId: string, date: string): void {
    announced.set(keyOf(vendor, upstreamId), date);
  },
  /** The vendor no longer serves the model: its list leaves it out and its lookup answers not found. */
  unlist(vendor: ProviderName, upstreamId: string): void {
    unlisted.add(keyOf(vendor, upstreamId));
  },
  /** The vendor's list leaves the model out, but the model still answers (a partial list). */
  omitFromList(vendor: ProviderName, upstreamId: string): void {
    omitted.add(keyOf(vendor, upstreamId));
  },
  /** The vendor's list answers with no models at all, or with a server error. */
  breakList(vendor: ProviderName, how: 'empty' | 'error'): void {
    broken.set(vendor, how);
  },
  /** Whether the vendor still serves the model (a test may have stopped it: its fake then answers not found). */
  serves(vendor: ProviderName, upstreamId: string): boolean {
    return !unlisted.has(keyOf(vendor, upstreamId));
  },
  reset(): void {
    announced.clear();
    unlisted.clear();
    omitted.clear();
    broken.clear();
  },
};

/** The vendor's id of each model it serves (catalog models by the id it knows them by, and its others) → catalog id. */
function served(vendor: ProviderName): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of MODELS) {
    if (m.provider === vendor && !unlisted.has(keyOf(vendor, m.upstreamModel))) {
      out.set(VENDOR_IDS[vendor]?.[m.upstreamModel] ?? m.upstreamModel, m.upstreamModel);
    }
  }
  for (const id of EXTRA[vendor] ?? []) if (!unlisted.has(keyOf(vendor, id))) out.set(id, id);
  return out;
}

/** The vendor ids on its list, sorted: the categories it documents, less what a test left out. */
function listed(vendor: ProviderName): string[] {
  if (broken.get(vendor) === 'empty') return [];
  const categories = LISTED_CATEGORIES[vendor];
  const category = new Map(MODELS.filter((m) => m.provider === vendor).map((m) => [m.upstreamModel, m.category as string]));
  return [...served(vendor)]
    .filter(([, upstream]) => !omitted.has(keyOf(vendor, upstream)))
    .filter(([, upstream]) => !categories || !category.has(upstream) || categories.includes(category.get(upstream)!))
    .map(([id]) => id)
    .sort();
}

/** The vendor id a "retrieve" for `id` (its own id, or an alias the catalog sends) answers with; undefined: not found. */
function retrieved(vendor: ProviderName, id: string): string | undefined {
  const ids = served(vendor);
  if (ids.has(id)) return id;
  const aliased = VENDOR_IDS[vendor]?.[id];
  return aliased && ids.has(aliased) ? aliased : undefined;
}

/** A list the test broke with a server error, in the vendor's own error shape; false when the list answers. */
function answeredBroken(vendor: ProviderName, res: ServerResponse): boolean {
  if (broken.get(vendor) !== 'error') return false;
  sendJson(res, 500, { error: { message: 'The server had an error while processing your request.', type: 'server_error', code: null } });
  return true;
}

const CREATED = 1_735_689_600;

function bearer(req: SandboxRequest): boolean {
  return /^(Bearer|Token) \S+/.test(String(req.headers.authorization ?? ''));
}

function openAiStyle(vendor: ProviderName, req: SandboxRequest, res: ServerResponse, id: string): void {
  if (!bearer(req)) {
    sendJson(res, 401, {
      error: { message: 'Missing bearer authentication in header', type: 'invalid_request_error', param: null, code: null },
    });
    return;
  }
  const owner = vendor === 'openai' ? 'system' : vendor;
  const modelObject = (modelId: string) => {
    const model: Record<string, unknown> = { id: modelId, object: 'model', created: CREATED, owned_by: owner };
    // Only OpenAI documents `shutdown_date` (null when none is announced); DeepSeek's objects have no `created`.
    if (vendor === 'openai') {
      model.shutdown_date = announced.get(keyOf(vendor, modelId)) ?? VENDOR_ANNOUNCED.get(keyOf(vendor, modelId)) ?? null;
    }
    if (vendor === 'deepseek') delete model.created;
    return model;
  };
  if (id !== '') {
    // GET /models/{model}: the model, or OpenAI's (and xAI's) 404 for one it does not serve.
    const found = retrieved(vendor, id);
    if (found) return sendJson(res, 200, modelObject(found));
    return sendJson(res, 404, {
      error: {
        message: `The model \`${id}\` does not exist or you do not have access to it.`,
        type: 'invalid_request_error',
        param: null,
        code: 'model_not_found',
      },
    });
  }
  if (answeredBroken(vendor, res)) return;
  sendJson(res, 200, { object: 'list', data: listed(vendor).map(modelObject) });
}

/** GET /v1/models: `limit` (1..1000, default 20), `after_id` / `before_id` cursors, `has_more`, `first_id`, `last_id`. */
function anthropic(vendor: ProviderName, req: SandboxRequest, res: ServerResponse, id: string): void {
  const key = req.headers['x-api-key'];
  if ((typeof key !== 'string' || key === '') && !bearer(req)) {
    sendJson(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } });
    return;
  }
  if (!req.headers['anthropic-version']) {
    sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });
    return;
  }
  if (id !== '') {
    // GET /v1/models/{model_id}: an id or an alias, answered with the model's own (dated) id.
    const found = retrieved(vendor, id);
    if (found) return sendJson(res, 200, { type: 'model', id: found, display_name: found, created_at: '2025-10-01T00:00:00Z' });
    return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `model: ${id}` } });
  }
  if (answeredBroken(vendor, res)) return;
  const limit = Number(req.query.get('limit') ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'limit: Input should be between 1 and 1000' } });
    return;
  }
  const all = listed(vendor);
  const after = req.query.get('after_id');
  const before = req.query.get('before_id');
  let page: string[];
  if (after) page = all.slice(all.indexOf(after) + 1, all.indexOf(after) + 1 + limit);
  else if (before) page = all.slice(Math.max(0, all.indexOf(before) - limit), Math.max(0, all.indexOf(before)));
  else page = all.slice(0, limit);
  const lastIndex = page.length > 0 ? all.indexOf(page[page.length - 1]!) : all.length;
  sendJson(res, 200, {
    data: page.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-10-01T00:00:00Z' })),
    has_more: before ? all.indexOf(page[0] ?? '') > 0 : lastIndex < all.length - 1,
    first_id: page[0] ?? null,
    last_id: page[page.length - 1] ?? null,
  });
}

function geminiModel(id: string) {
  return {
    name: `models/${id}`,
    version: '001',
    displayName: id,
    description: `${id} (sandbox)`,
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: id.startsWith('gemini-omni') ? ['createInteraction'] : ['generateContent', 'countTokens'],
  };
}

/** models.list: GET /v1beta/models?pageSize= (default 50, at most 1000) &pageToken= → {models, nextPageToken}. */
function gemini(vendor: ProviderName, req: SandboxRequest, res: ServerResponse, id: string): void {
  const key = req.headers['x-goog-api-key'] ?? req.query.get('key');
  if (typeof key !== 'string' || key === '') {
    sendJson(res, 403, { error: { code: 403, message: 'Method does not allow unregistered callers.', status: 'PERMISSION_DENIED' } });
    return;
  }
  if (id !== '') {
    // models.get: GET /v1beta/models/{model}.
    const found = retrieved(vendor, id);
    if (found) return sendJson(res, 200, geminiModel(found));
    return sendJson(res, 404, {
      error: { code: 404, message: `models/${id} is not found for API version v1beta, or is not supported.`, status: 'NOT_FOUND' },
    });
  }
  if (answeredBroken(vendor, res)) return;
  const size = Math.min(Number(req.query.get('pageSize') ?? 50) || 50, 1000);
  const all = listed(vendor);
  const start = Number(req.query.get('pageToken') ? Buffer.from(req.query.get('pageToken')!, 'base64url').toString() : 0);
  if (!Number.isInteger(start) || start < 0 || start > all.length) {
    sendJson(res, 400, { error: { code: 400, message: 'Invalid page token.', status: 'INVALID_ARGUMENT' } });
    return;
  }
  const page = all.slice(start, start + size);
  const models = page.map(geminiModel);
  const next = start + size < all.length ? Buffer.from(String(start + size)).toString('base64url') : undefined;
  sendJson(res, 200, next ? { models, nextPageToken: next } : { models });
}

function elevenLabs(vendor: ProviderName, req: SandboxRequest, res: ServerResponse): void {
  const key = req.headers['xi-api-key'];
  if (typeof key !== 'string' || key === '') {
    sendJson(res, 401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
    return;
  }
  if (answeredBroken(vendor, res)) return;
  sendJson(
    res,
    200,
    listed(vendor).map((id) => ({
      model_id: id,
      name: id,
      can_be_finetuned: false,
      can_do_text_to_speech: id.startsWith('eleven_'),
      can_do_voice_conversion: id.includes('sts'),
      can_use_style: true,
      can_use_speaker_boost: true,
      serves_pro_voices: false,
      token_cost_factor: 1,
      description: `${id} (sandbox)`,
      requires_alpha_access: false,
      max_characters_request_free_user: 2500,
      max_characters_request_subscribed_user: 10000,
      maximum_text_length_per_request: 10000,
      languages: [{ language_id: 'en', name: 'English' }],
      model_rates: { character_cost_multiplier: 1 },
      concurrency_group: 'standard',
    })),
  );
}

function replicate(vendor: ProviderName, req: SandboxRequest, res: ServerResponse, lookup: string): void {
  const [owner, name] = lookup.split('/') as [string, string];
  if (!bearer(req)) {
    sendJson(res, 401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 });
    return;
  }
  const id = `${owner}/${name}`;
  if (!retrieved(vendor, id)) {
    sendJson(res, 404, { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 });
    return;
  }
  sendJson(res, 200, {
    url: `https://replicate.com/${id}`,
    owner,
    name,
    description: `${id} (sandbox)`,
    visibility: 'public',
    github_url: null,
    paper_url: null,
    license_url: null,
    run_count: 1000,
    cover_image_url: null,
    default_example: null,
    latest_version: null,
  });
}

type ListFake = (vendor: ProviderName, req: SandboxRequest, res: ServerResponse, id: string) => void;

/**
 * Every documented list protocol has its fake: a new protocol fails the type check here until it has one. `id`
 * matches the model id of a "retrieve a model" (served only for vendors whose definition documents one).
 */
const LIST_FAKES: Record<ModelListProtocol, { fake: ListFake; id: string }> = {
  openai: { fake: openAiStyle, id: '[\\w.-]+' },
  anthropic: { fake: anthropic, id: '[\\w.-]+' },
  gemini: { fake: gemini, id: '[\\w.-]+' },
  elevenlabs: { fake: elevenLabs, id: '[\\w.-]+' },
  replicate: { fake: replicate, id: '[\\w.-]+/[\\w.-]+' },
};

/** Where the vendor's model list answers: its default base URL's path, then the listing's own path. */
function listPaths(vendor: Pick<ProviderAdapter, 'defaultBaseUrl' | 'models'>): string[] {
  if (!vendor.models) return [];
  const base = new URL(vendor.defaultBaseUrl).pathname.replace(/\/+$/, '');
  // A vendor whose base URL has no version path (DeepSeek) also answers under `/v1`, as it documents.
  return base === '' ? [vendor.models.path, `/v1${vendor.models.path}`] : [base + vendor.models.path];
}

/** Serves the vendor's model list and lookup (as its definition declares them) in front of its fake; the rest goes to the fake. */
export function withModelList(vendor: ProviderAdapter, fake: SandboxHandler): SandboxHandler {
  const paths = listPaths(vendor);
  const listing = vendor.models;
  const protocol = listing && LIST_FAKES[listing.protocol];
  if (!listing || !protocol) return fake;
  return async (req, res) => {
    const path = req.path.replace(/\/{2,}/g, '/');
    if (req.method === 'GET') {
      for (const at of paths) {
        if (listing.list && path === at) return protocol.fake(vendor.name, req, res, '');
        const model = listing.retrieve ? new RegExp(`^${at}/(${protocol.id})$`).exec(path) : null;
        if (model) return protocol.fake(vendor.name, req, res, decodeURIComponent(model[1]!));
      }
    }
    return fake(req, res);
  };
}
