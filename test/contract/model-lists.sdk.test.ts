import Anthropic from '@anthropic-ai/sdk';
import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import Replicate from 'replicate';
import { MODELS } from '../../src/core/catalog/models';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import { sandboxModelLists } from '../../src/sandbox/model-lists';
import { SandboxServer, startSandbox } from '../../src/sandbox/server';

// Each vendor fake's model list and "retrieve a model", read by that vendor's official SDK (what catalog:check asks):
// the documented shapes, the pagination the SDKs follow (Anthropic's has_more/last_id, Gemini's nextPageToken),
// OpenAI's shutdown_date, the dated ids vendors list for the aliases the catalog sends, and a model the fake stops
// serving.

let sandbox: SandboxServer;
beforeAll(async () => {
  sandbox = await startSandbox(sandboxHandlers);
});
afterAll(() => sandbox.close());
afterEach(() => sandboxModelLists.reset());

const upstreamIds = (provider: string) => MODELS.filter((m) => m.provider === provider).map((m) => m.upstreamModel);
/** The ids a vendor lists for the catalog's models: Anthropic a dated snapshot, xAI its release for the alias we send. */
const LISTED_AS: Record<string, string> = {
  'claude-haiku-4-5': 'claude-haiku-4-5-20251001',
  'grok-4.20-non-reasoning': 'grok-4.20-0309-non-reasoning',
};
const listedIds = (provider: string) => upstreamIds(provider).map((id) => LISTED_AS[id] ?? id);

test('openai models.list: every catalog model, shutdown_date null until one is announced, then the date', async () => {
  const client = new OpenAI({ apiKey: 'sk-contract', baseURL: `${sandbox.mountUrl('openai')}/v1`, maxRetries: 0 });
  const before = [];
  for await (const m of client.models.list()) before.push(m);
  expect(before.map((m) => m.id)).toEqual(expect.arrayContaining(upstreamIds('openai')));
  expect(before.every((m) => m.object === 'model')).toBe(true);
  // OpenAI has announced gpt-4o-transcribe's shutdown (2027-02-26); the other catalog models have none.
  const dates = Object.fromEntries(
    before.filter((m) => upstreamIds('openai').includes(m.id)).map((m) => [m.id, (m as { shutdown_date?: unknown }).shutdown_date]),
  );
  expect(dates).toEqual(Object.fromEntries(upstreamIds('openai').map((id) => [id, id === 'gpt-4o-transcribe' ? '2027-02-26' : null])));

  const target = upstreamIds('openai')[0]!;
  sandboxModelLists.announceShutdown('openai', target, '2027-03-01');
  sandboxModelLists.unlist('openai', upstreamIds('openai')[1]!);
  const after = [];
  for await (const m of client.models.list()) after.push(m);
  expect(after.find((m) => m.id === target)).toMatchObject({ shutdown_date: '2027-03-01' });
  expect(after.map((m) => m.id)).not.toContain(upstreamIds('openai')[1]);

  // models.retrieve: one model, and OpenAI's 404 model_not_found for one it no longer serves.
  expect(await client.models.retrieve(target)).toMatchObject({ id: target, object: 'model', shutdown_date: '2027-03-01' });
  await expect(client.models.retrieve(upstreamIds('openai')[1]!)).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
});

test('xai and deepseek models.list through the OpenAI SDK', async () => {
  for (const [vendor, base] of [
    ['xai', `${sandbox.mountUrl('xai')}/v1`],
    ['deepseek', sandbox.mountUrl('deepseek')],
  ] as const) {
    const client = new OpenAI({ apiKey: 'sk-contract', baseURL: base, maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(expect.arrayContaining(listedIds(vendor)));
  }
  // xAI documents GET /v1/models/{model_id}, which takes the alias; DeepSeek documents only the list.
  const xai = new OpenAI({ apiKey: 'sk-contract', baseURL: `${sandbox.mountUrl('xai')}/v1`, maxRetries: 0 });
  expect(await xai.models.retrieve('grok-4.20-non-reasoning')).toMatchObject({ id: 'grok-4.20-0309-non-reasoning' });
  await expect(xai.models.retrieve('grok-1')).rejects.toMatchObject({ status: 404 });
});

test('@anthropic-ai/sdk models.list pages through has_more / last_id', async () => {
  const client = new Anthropic({ apiKey: 'sk-ant-contract', baseURL: sandbox.mountUrl('anthropic'), maxRetries: 0 });
  const first = await client.models.list({ limit: 2 });
  expect(first.data).toHaveLength(2);
  expect(first.has_more).toBe(true);
  expect(first.last_id).toBe(first.data[1]!.id);
  const ids: string[] = [];
  for await (const m of client.models.list({ limit: 2 })) {
    expect(m.type).toBe('model');
    ids.push(m.id);
  }
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual(expect.arrayContaining(listedIds('anthropic')));
  // The list holds the dated id; "get a model" takes the alias and answers with it.
  expect(ids).not.toContain('claude-haiku-4-5');
  expect(await client.models.retrieve('claude-haiku-4-5')).toMatchObject({ type: 'model', id: 'claude-haiku-4-5-20251001' });
  await expect(client.models.retrieve('claude-2.0')).rejects.toMatchObject({ status: 404 });
});

test('@google/genai models.list pages through nextPageToken; names are models/<id>', async () => {
  // An explicit fetch: the SDK's default reaches for Node's undici global dispatcher, which jest's sandboxed globals hide.
  const ai = new GoogleGenAI({
    apiKey: 'contract-key',
    httpOptions: { baseUrl: sandbox.mountUrl('google'), fetch: (url, init) => fetch(url, init) },
  });
  const pager = await ai.models.list({ config: { pageSize: 2 } });
  const names: string[] = [];
  for await (const m of pager) names.push(m.name!);
  expect(names.every((n) => n.startsWith('models/'))).toBe(true);
  expect(names.map((n) => n.slice('models/'.length))).toEqual(expect.arrayContaining(upstreamIds('google')));
  expect(names.length).toBeGreaterThan(2);
  expect(await ai.models.get({ model: 'gemini-3.5-flash' })).toMatchObject({ name: 'models/gemini-3.5-flash' });
  await expect(ai.models.get({ model: 'gemini-1.0-pro' })).rejects.toThrow(/404|not found/i);
});

test('@elevenlabs/elevenlabs-js models.list: the voice models by model_id (Scribe and Music are not documented there)', async () => {
  const client = new ElevenLabsClient({ apiKey: 'xi-contract', baseUrl: sandbox.mountUrl('elevenlabs'), maxRetries: 0 });
  const models = await client.models.list();
  const speech = MODELS.filter((m) => m.provider === 'elevenlabs' && m.category === 'tts').map((m) => m.upstreamModel);
  expect(models.map((m) => m.modelId)).toEqual(expect.arrayContaining(speech));
  expect(models.map((m) => m.modelId)).not.toContain('scribe_v2');
  expect(models.map((m) => m.modelId)).not.toContain('music_v1');
  expect(models.every((m) => m.canDoTextToSpeech || m.canDoVoiceConversion)).toBe(true);
});

test('replicate models.get: a catalog model, and a 404 once the fake no longer has it', async () => {
  const client = new Replicate({ auth: 'r8_contract', baseUrl: `${sandbox.mountUrl('replicate')}/v1` });
  const id = upstreamIds('replicate')[0]!;
  const [owner, name] = id.split('/') as [string, string];
  const model = await client.models.get(owner, name);
  expect(model).toMatchObject({ owner, name, url: `https://replicate.com/${id}` });
  sandboxModelLists.unlist('replicate', id);
  await expect(client.models.get(owner, name)).rejects.toThrow(/404/);
});
