import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Api } from 'grammy';
import { AdminNotifier } from '../../src/bot/services/admin-notifier';
import { BackgroundTasks } from '../../src/bot/services/background';
import { I18n } from '../../src/bot/i18n';
import { connectionsFor, type CatalogChange } from '../../src/core/catalog/live/check';
import { MODELS } from '../../src/core/catalog/models';
import { createLogger } from '../../src/logger';
import { sandboxModelLists } from '../../src/sandbox/model-lists';
import { ApiHarness, expectErrorShape, startApi } from '../api/harness';
import { CATALOG_SHAPE } from '../fixtures/catalog-shape';
import { buildOnce } from '../ops/service-process';

// catalog:check against the sandbox: the OpenAI fake announces a shutdown_date for one model and stops serving
// another; the check classifies them `deprecated` and (only after two misses a day apart and a direct not-found)
// `gone`, keeps the findings (a gone model is retired), and tells the admins once per change, first.

const run = promisify(execFile);
const root = path.join(__dirname, '../..');
let api: ApiHarness;

const openAiText = MODELS.filter((m) => m.provider === 'openai' && m.category === 'text');
const deprecated = openAiText[0]!;
const gone = openAiText[1]!;
// OpenAI's list already announces this shutdown (its deprecations page: 2027-02-26).
const vendorAnnounced = ['gpt-4o-transcribe'];
// BFL and the local OCR have no list; ElevenLabs documents its list as its voice models (not Scribe or Music).
const notOnAnyList = MODELS.filter(
  (m) => m.provider === 'bfl' || m.provider === 'local' || (m.provider === 'elevenlabs' && m.category !== 'tts'),
).map((m) => m.slug);

beforeAll(async () => {
  buildOnce();
  api = await startApi();
  await api.services.catalog.load();
}, 60_000);
afterAll(async () => {
  sandboxModelLists.reset();
  await api?.close();
});

test('a shutdown_date makes a model deprecated; an unlisted one is warned about, then gone a day later; news once', async () => {
  const heard: CatalogChange[][] = [];
  api.services.catalog.onChange((changes) => heard.push(changes));
  sandboxModelLists.announceShutdown('openai', deprecated.upstreamModel, '2027-03-01');
  sandboxModelLists.unlist('openai', gone.upstreamModel);
  const day0 = new Date();

  const { report, changes } = await api.services.catalog.check(connectionsFor(api.services.connections), day0);
  expect(Number.isNaN(Date.parse(report.checked_at))).toBe(false);
  expect(report.models.map((m) => m.slug)).toEqual(MODELS.map((m) => m.slug));
  expect(report.models).toHaveLength(CATALOG_SHAPE.models);
  const bySlug = new Map(report.models.map((m) => [m.slug, m]));
  expect(bySlug.get(deprecated.slug)).toMatchObject({
    provider: 'openai',
    upstream_id: deprecated.upstreamModel,
    status: 'deprecated',
    shutdown_at: '2027-03-01',
  });
  // One miss retires nothing: unchecked this time, and the admins are warned.
  expect(bySlug.get(gone.slug)).toMatchObject({ status: 'unchecked' });
  for (const m of report.models) {
    if (notOnAnyList.includes(m.slug)) expect(m.status).toBe('unchecked');
    else if (vendorAnnounced.includes(m.slug)) expect(m).toMatchObject({ slug: m.slug, status: 'deprecated', shutdown_at: '2027-02-26' });
    else if (m.slug !== deprecated.slug && m.slug !== gone.slug) expect(m).toMatchObject({ slug: m.slug, status: 'live' });
  }
  expect(changes.map((c) => [c.slug, c.status])).toEqual([
    [deprecated.slug, 'deprecated'],
    [gone.slug, 'missing'],
    ...vendorAnnounced.map((slug) => [slug, 'deprecated']),
  ]);
  expect(heard).toHaveLength(1);
  const account = await api.account('vip');
  const key = await api.apiKey(account);
  const ask = () =>
    api.request('POST', '/v1/chat/completions', { token: key, body: { model: gone.slug, messages: [{ role: 'user', content: 'hi' }] } });
  expect((await api.request('GET', '/v1/models', { token: key })).body.data.map((m: { id: string }) => m.id)).toContain(gone.slug);

  // The same answer again within the day is no news, and still retires nothing.
  expect((await api.services.catalog.check(connectionsFor(api.services.connections), new Date(day0.getTime() + 3600_000))).changes).toEqual(
    [],
  );
  expect(heard).toHaveLength(1);

  // A day later it is still missing and OpenAI's lookup answers not found: gone, told, then retired.
  const later = await api.services.catalog.check(connectionsFor(api.services.connections), new Date(day0.getTime() + 25 * 3600_000));
  expect(later.report.models.find((m) => m.slug === gone.slug)).toMatchObject({ status: 'gone' });
  // (A fresh database: the check never saw it listed, so there is no status before.)
  expect(later.changes.map((c) => [c.slug, c.before, c.status])).toEqual([[gone.slug, null, 'gone']]);
  expect(heard).toHaveLength(2);
  const res = await ask();
  expect(res.status).toBe(410);
  const listed = await api.request('GET', '/v1/models', { token: key });
  expect(listed.body.data.map((m: { id: string }) => m.id)).not.toContain(gone.slug);
  const token = await api.accessToken(account);
  expectErrorShape(
    await api.request('POST', '/api/v2/generate/stream', { token, body: { model: gone.slug, prompt: 'x' } }),
    410,
    'model_retired',
  );

  // The vendor lists it again: back in service, and that is news too.
  sandboxModelLists.reset();
  const back = await api.services.catalog.check(connectionsFor(api.services.connections), new Date(day0.getTime() + 26 * 3600_000));
  expect(back.changes.map((c) => [c.slug, c.before, c.status])).toEqual([
    [deprecated.slug, 'deprecated', 'live'],
    [gone.slug, 'gone', 'live'],
  ]);
});

test('the admin notice names each model that changed, with its status, shutdown and replacement', async () => {
  const sent: { chatId: number; text: string }[] = [];
  const apiStub = {
    sendMessage: async (chatId: number, text: string) => {
      sent.push({ chatId, text });
      return {};
    },
  } as unknown as Api;
  const log = createLogger('silent');
  const tasks = new BackgroundTasks(log);
  const admin = new AdminNotifier({
    api: apiStub,
    languageOf: async () => undefined,
    i18n: I18n.load(),
    log,
    tasks,
    chatIds: [42],
    burstThreshold: 5,
    burstWindowMs: 60_000,
  });
  admin.catalogChanged([
    { slug: deprecated.slug, before: 'live', status: 'deprecated', shutdownAt: '2027-03-01', replacement: null },
    { slug: gone.slug, before: 'live', status: 'gone', shutdownAt: null, replacement: 'gpt-6.1-sol' },
  ]);
  await tasks.drain(5000);
  expect(sent).toHaveLength(1);
  expect(sent[0]!.text).toContain(`${deprecated.slug}: deprecated, shutdown 2027-03-01`);
  expect(sent[0]!.text).toContain(`${gone.slug}: gone`);
  expect(sent[0]!.text).toContain('replacement gpt-6.1-sol');
});

test('`npm run cli -- catalog:check` prints {checked_at, models} for every catalog model, from the sandbox', async () => {
  const { stdout } = await run('node', ['dist/src/cli.js', 'catalog:check'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: api.db.url, NODE_ENV: 'test' },
  });
  const report = JSON.parse(stdout) as { checked_at: string; models: { slug: string; status: string; shutdown_at: string | null }[] };
  expect(Object.keys(report).sort()).toEqual(['checked_at', 'models']);
  expect(report.models).toHaveLength(CATALOG_SHAPE.models);
  for (const m of report.models) {
    expect(Object.keys(m).sort()).toEqual(['provider', 'replacement', 'shutdown_at', 'slug', 'status', 'upstream_id']);
  }
  expect(report.models.filter((m) => m.status === 'unchecked').map((m) => m.slug)).toEqual(notOnAnyList);
  const announced = report.models.filter((m) => m.status === 'deprecated');
  expect(announced.map((m) => [m.slug, m.shutdown_at])).toEqual(vendorAnnounced.map((slug) => [slug, '2027-02-26']));
  expect(report.models.filter((m) => m.status !== 'unchecked' && m.status !== 'deprecated').every((m) => m.status === 'live')).toBe(true);
}, 60_000);
