import type { ServerResponse } from 'node:http';
import { MODELS } from '../core/catalog/models';
import type { ModelListProtocol, ProviderAdapter } from '../core/providers/adapter';
import type { ProviderName } from '../core/providers/types';
import { sendJson, type SandboxHandler, type SandboxRequest } from './types';

// Each vendor fake's model-list endpoint, in the documented shape its definition names (`models.protocol`), at
// its path, listing the catalog's upstream ids of that vendor (plus a few of the vendor's other models). Tests can
// have a fake announce a shutdown date for a model (OpenAI's `shutdown_date`) or stop listing one, as vendors do
// when they retire models.

const EXTRA: Partial<Record<ProviderName, string[]>> = {
  openai: ['text-embedding-3-small', 'omni-moderation-latest', 'gpt-realtime-2.1-mini', 'whisper-1'],
  anthropic: ['claude-3-haiku-20240307'],
  google: ['text-embedding-004', 'aqa'],
  xai: ['grok-2-vision-1212'],
  elevenlabs: ['eleven_turbo_v2_5', 'eleven_english_sts_v2'],
  replicate: ['black-forest-labs/flux-schnell'],
};

// The shutdown dates OpenAI's list already announces for catalog models (its deprecations page); tests add more.
const VENDOR_ANNOUNCED: ReadonlyMap<string, string> = new Map([
  ['openai:whisper-1', '2027-02-26'],
  ['openai:gpt-4o-transcribe', '2027-02-26'],
]);
const announced = new Map<string, string>();
const unlisted = new Set<string>();
const keyOf = (vendor: ProviderName, id: string) => `${vendor}:${id}`;

/** What the fakes list (for tests: announce a shutdown, stop listing a model, back to the defaults). */
export const sandboxModelLists = {
  announceShutdown(vendor: ProviderName, upstreamId: string, date: string): void {
    announced.set(keyOf(vendor, upstreamId), date);
  },
  unlist(vendor: ProviderName, upstreamId: string): void {
    unlisted.add(keyOf(vendor, upstreamId));
  },
  reset(): void {
    announced.clear();
    unlisted.clear();
  },
};

function listed(vendor: ProviderName): string[] {
  const ids = [...new Set([...MODELS.filter((m) => m.provider === vendor).map((m) => m.upstreamModel), ...(EXTRA[vendor] ?? [])])];
  return ids.filter((id) => !unlisted.has(keyOf(vendor, id))).sort();
}

const CREATED = 1_735_689_600;

function bearer(req: SandboxRequest): boolean {
  return /^(Bearer|Token) \S+/.test(String(req.headers.authorization ?? ''));
}

function openAiStyle(vendor: ProviderName, req: SandboxRequest, res: ServerResponse): void {
  if (!bearer(req)) {
    sendJson(res, 401, {
      error: { message: 'Missing bearer authentication in header', type: 'invalid_request_error', param: null, code: null },
    });
    return;
  }
  const owner = vendor === 'openai' ? 'system' : vendor;
  const data = listed(vendor).map((id) => {
    const model: Record<string, unknown> = { id, object: 'model', created: CREATED, owned_by: owner };
    // Only OpenAI documents `shutdown_date` (null when none is announced); DeepSeek's objects have no `created`.
    if (vendor === 'openai') model.shutdown_date = announced.get(keyOf(vendor, id)) ?? VENDOR_ANNOUNCED.get(keyOf(vendor, id)) ?? null;
    if (vendor === 'deepseek') delete model.created;
    return model;
  });
  sendJson(res, 200, { object: 'list', data });
}

/** GET /v1/models: `limit` (1..1000, default 20), `after_id` / `before_id` cursors, `has_more`, `first_id`, `last_id`. */
function anthropic(vendor: ProviderName, req: SandboxRequest, res: ServerResponse): void {
  const key = req.headers['x-api-key'];
  if ((typeof key !== 'string' || key === '') && !bearer(req)) {
    sendJson(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } });
    return;
  }
  if (!req.headers['anthropic-version']) {
    sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });
    return;
  }
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

/** models.list: GET /v1beta/models?pageSize= (default 50, at most 1000) &pageToken= → {models, nextPageToken}. */
function gemini(vendor: ProviderName, req: SandboxRequest, res: ServerResponse): void {
  const key = req.headers['x-goog-api-key'] ?? req.query.get('key');
  if (typeof key !== 'string' || key === '') {
    sendJson(res, 403, { error: { code: 403, message: 'Method does not allow unregistered callers.', status: 'PERMISSION_DENIED' } });
    return;
  }
  const size = Math.min(Number(req.query.get('pageSize') ?? 50) || 50, 1000);
  const all = listed(vendor);
  const start = Number(req.query.get('pageToken') ? Buffer.from(req.query.get('pageToken')!, 'base64url').toString() : 0);
  if (!Number.isInteger(start) || start < 0 || start > all.length) {
    sendJson(res, 400, { error: { code: 400, message: 'Invalid page token.', status: 'INVALID_ARGUMENT' } });
    return;
  }
  const page = all.slice(start, start + size);
  const models = page.map((id) => ({
    name: `models/${id}`,
    version: '001',
    displayName: id,
    description: `${id} (sandbox)`,
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: id.startsWith('gemini-omni') ? ['createInteraction'] : ['generateContent', 'countTokens'],
  }));
  const next = start + size < all.length ? Buffer.from(String(start + size)).toString('base64url') : undefined;
  sendJson(res, 200, next ? { models, nextPageToken: next } : { models });
}

function elevenLabs(vendor: ProviderName, req: SandboxRequest, res: ServerResponse): void {
  const key = req.headers['xi-api-key'];
  if (typeof key !== 'string' || key === '') {
    sendJson(res, 401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
    return;
  }
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
  if (!listed(vendor).includes(id)) {
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

type ListFake = (vendor: ProviderName, req: SandboxRequest, res: ServerResponse, rest: string) => void;

/** Every documented list protocol has its fake: a new protocol fails the type check here until it has one. */
const LIST_FAKES: Record<ModelListProtocol, { fake: ListFake; perModel?: true }> = {
  openai: { fake: openAiStyle },
  anthropic: { fake: anthropic },
  gemini: { fake: gemini },
  elevenlabs: { fake: elevenLabs },
  replicate: { fake: replicate, perModel: true },
};

/** Where the vendor's model list answers: its default base URL's path, then the listing's own path. */
function listPaths(vendor: Pick<ProviderAdapter, 'defaultBaseUrl' | 'models'>): string[] {
  if (!vendor.models) return [];
  const base = new URL(vendor.defaultBaseUrl).pathname.replace(/\/+$/, '');
  // A vendor whose base URL has no version path (DeepSeek) also answers under `/v1`, as it documents.
  return base === '' ? [vendor.models.path, `/v1${vendor.models.path}`] : [base + vendor.models.path];
}

/** Serves the vendor's model-list endpoint (as its definition declares it) in front of its fake; the rest goes to the fake. */
export function withModelList(vendor: ProviderAdapter, fake: SandboxHandler): SandboxHandler {
  const paths = listPaths(vendor);
  const list = vendor.models && LIST_FAKES[vendor.models.protocol];
  if (!list) return fake;
  return async (req, res) => {
    const path = req.path.replace(/\/{2,}/g, '/');
    if (req.method === 'GET') {
      for (const at of paths) {
        if (!list.perModel && path === at) return list.fake(vendor.name, req, res, '');
        const model = list.perModel ? new RegExp(`^${at}/([\\w.-]+/[\\w.-]+)$`).exec(path) : null;
        if (model) return list.fake(vendor.name, req, res, model[1]!);
      }
    }
    return fake(req, res);
  };
}
