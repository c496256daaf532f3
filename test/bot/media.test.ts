import sharp from 'sharp';
import { quoteGeneration } from '../../src/core/catalog/pricing';
import { requireModel } from '../../src/core/catalog/catalog';
import { getBalance, grantBonus, ledgerTotals } from '../../src/core/billing/ledger';
import { startWorkers } from '../../src/jobs/workers';
import { GenerationEntity } from '../../src/db/entities';
import { createBot } from '../../src/bot';
import { createUser } from '../../src/core/accounts/users';
import { BOT_INFO } from './fake-telegram';
import { BotHarness, buttonsOf, lastKeyboard, press, startBotHarness, TEST_SETTINGS, TOKEN, accountOf } from './harness';
import type { RecordedCall } from './fake-telegram';
import { waitUntil } from '../support/wait';
import { createGoogleSandbox } from '../../src/sandbox/google';
import { sendJson, type SandboxHandler } from '../../src/sandbox/types';

let h: BotHarness;
/** FLUX.1 [dev]: one price for every size (BFL's per-image list price under the rule). */
const FLUX = quoteGeneration(requireModel('flux-dev'));
const omniSeconds = (s: number) => quoteGeneration(requireModel('gemini-omni-1.1-flash'), { durationSeconds: s });

/**
 * Google video operations run until the test lets them finish. Counting polls made the pending window a matter of timing:
 * under load the chain of job steps outlived the wait for the video, and the assertions on the pending state raced
 * the worker. While held, an operation answers as Google's does for one still running: its name, without `done`.
 */
const veo = { held: true };
function heldVeo(google: SandboxHandler): SandboxHandler {
  return (req, res) => {
    const op = /^\/v1beta\/(models\/[^/:]+\/operations\/[^/]+)$/.exec(req.path);
    if (veo.held && op && req.method === 'GET') return sendJson(res, 200, { name: op[1] });
    return google(req, res);
  };
}

beforeAll(async () => {
  h = await startBotHarness({ handlers: { google: heldVeo(createGoogleSandbox({ pendingPolls: 0 })) } });
  // The job workers run in this process too (as with `npm start`): pending generations advance on their own.
  await h.engine.startWorkers();
});
afterAll(() => h.close());

async function expectBooksBalanced(userId: number) {
  const b = await getBalance(h.engine.db.dataSource, userId);
  expect(await ledgerTotals(h.engine.db.dataSource, userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

function to(chatId: number, method: string): RecordedCall[] {
  return h.telegram.callsOf(method).filter((c) => Number(c.payload.chat_id) === chatId);
}

test('an image conversation end to end: model, size, prompt, price, confirm, photo delivered, charged the quote', async () => {
  const user = h.user(4_300_001, { languageCode: 'en' });
  await h.send(user.text('/start'));
  await press(h, user, /^menu:image$/);
  const picker = lastKeyboard(h.telegram, user.id);
  expect(picker.payload.text).toContain('Choose an image model');
  const labels = buttonsOf(picker).map((b) => b.text);
  expect(labels).toContain(`FLUX.1 [dev] · ${FLUX} tkn`);
  expect(labels).toContain('🔒 GPT Image 2.6 Flare · Basic');

  // A locked model explains which plan opens it, and the wizard stays on the picker.
  await press(h, user, /:m:gpt-image-2.6-flare$/);
  const alert = h.telegram.callsOf('answerCallbackQuery').pop()!;
  expect(alert.payload).toMatchObject({ show_alert: true });
  expect(String(alert.payload.text)).toContain('Basic');

  await press(h, user, /:m:flux-dev$/);
  const sizes = lastKeyboard(h.telegram, user.id);
  expect(sizes.method).toBe('editMessageText');
  expect(buttonsOf(sizes).map((b) => b.text)).toEqual([
    `1024x1024 · ${FLUX} tkn`,
    `768x1344 · ${FLUX} tkn`,
    `1344x768 · ${FLUX} tkn`,
    '✖ Cancel',
  ]);
  await press(h, user, /:o:768x1344$/);
  expect(String(h.telegram.calls[h.telegram.calls.length - 1].payload.text)).toContain('Describe the image');

  await h.send(user.text('a red fox in the snow'));
  const confirm = lastKeyboard(h.telegram, user.id);
  const price = quoteGeneration(requireModel('flux-dev'), { size: '768x1344' });
  expect(confirm.payload.text).toContain(`Price: ${price} tkn (balance 50)`);
  expect(confirm.payload.text).toContain('Size: 768x1344');
  expect(confirm.payload.text).toContain('a red fox in the snow');
  const account = await accountOf(h, user.id);
  expect((await getBalance(h.engine.db.dataSource, account.id)).total).toBe(50);

  await press(h, user, /:ok$/);
  const photo = to(user.id, 'sendPhoto').pop()!;
  expect(photo.payload.caption).toContain(`FLUX.1 [dev] · ${price} tkn · balance ${50 - price}`);
  // "sending a photo…" while the model worked and the file went up.
  const uploading = to(user.id, 'sendChatAction').filter((c) => c.payload.action === 'upload_photo');
  expect(uploading.length).toBeGreaterThanOrEqual(1);
  expect(uploading[0].at).toBeLessThanOrEqual(photo.at);
  const meta = await sharp(photo.files.photo.data).metadata();
  expect([meta.format, meta.width, meta.height]).toEqual(['webp', 768, 1344]);
  // The progress message is gone once the result is there.
  const progress = to(user.id, 'sendMessage').find((c) => String(c.payload.text).startsWith('⏳ FLUX.1 [dev]'))!;
  expect(h.telegram.isDeleted(user.id, (progress.result as { message_id: number }).message_id)).toBe(true);

  const gen = await h.engine.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ userId: account.id });
  expect(gen).toMatchObject({ status: 'completed', source: 'bot', tokensSpent: price, prompt: 'a red fox in the snow' });
  expect(gen.delivery).toMatchObject({ chatId: user.id, deliveredAt: expect.any(String) });
  expect((await getBalance(h.engine.db.dataSource, account.id)).total).toBe(50 - price);
  await expectBooksBalanced(account.id);
});

test('cancelling the wizard runs nothing and charges nothing; a command mid-wizard leaves it', async () => {
  const user = h.user(4_300_002);
  await h.send(user.text('/image'));
  await press(h, user, /:m:flux-dev$/);
  await press(h, user, /:x$/);
  expect(
    h.telegram.calls
      .filter((c) => Number(c.payload.chat_id) === user.id)
      .map((c) => String(c.payload.text ?? ''))
      .pop(),
  ).toBe('Cancelled.');

  await h.send(user.text('/music'));
  await h.send(user.text('/balance'));
  expect(h.telegram.sentTexts(user.id).pop()).toContain('Balance: 50 tkn');
  const account = await accountOf(h, user.id);
  expect(await h.engine.db.dataSource.getRepository(GenerationEntity).countBy({ userId: account.id })).toBe(0);
});

test('a conversation survives a restart: a new bot process continues at the same step', async () => {
  const user = h.user(4_300_003);
  await h.send(user.text('/image'));
  await press(h, user, /:m:flux-dev$/);
  const sizes = lastKeyboard(h.telegram, user.id);
  const sizeButton = buttonsOf(sizes).find((b) => b.callback_data.endsWith(':o:1024x1024'))!;

  const restarted = h.newBot();
  await restarted.bot.handleUpdate(user.press(sizeButton.callback_data, { message_id: Number(sizes.payload.message_id) }));
  expect(String(h.telegram.calls[h.telegram.calls.length - 1].payload.text)).toContain('Describe the image');
  await restarted.bot.handleUpdate(user.text('a lighthouse'));
  expect(lastKeyboard(h.telegram, user.id).payload.text).toContain(`Price: ${FLUX} tkn`);
});

test('a pending video shows its ETA, is refreshed while it runs, and is delivered when the worker finishes it', async () => {
  const user = h.user(4_300_004);
  await h.send(user.text('/start'));
  // A clip of Gemini Omni 1.1 Flash costs more than the 50-token Starter grant.
  await grantBonus(h.engine.db.dataSource, (await accountOf(h, user.id)).id, 150, 'media-video', 'test');
  const balance = 200;
  await h.send(user.text('/video'));
  await press(h, user, /:m:gemini-omni-1.1-flash$/);
  await press(h, user, /:o:9:16$/);
  const durations = lastKeyboard(h.telegram, user.id);
  expect(buttonsOf(durations).map((b) => b.text)).toEqual([...[4, 6, 8, 10].map((d) => `${d} s · ${omniSeconds(d)} tkn`), '✖ Cancel']);
  await press(h, user, /:o:4$/);
  await press(h, user, /:skip$/);
  await h.send(user.text('waves at sunset'));
  await press(h, user, /:ok$/);

  const account = await accountOf(h, user.id);
  const gen = await h.engine.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ userId: account.id });
  expect(gen.status).toBe('pending');
  expect((await getBalance(h.engine.db.dataSource, account.id)).total).toBe(balance - omniSeconds(4));
  const progress = to(user.id, 'sendMessage').find((c) => String(c.payload.text).startsWith('⏳ Gemini Omni 1.1 Flash'))!;
  const progressId = (progress.result as { message_id: number }).message_id;
  expect(progress.payload.text).toBe('⏳ Gemini Omni 1.1 Flash is working on it… about 90 s.');

  // One ETA source: the refresh counts down from the same 90 s.
  await h.app.deps.delivery.tick();
  const refreshed = /^⏳ Gemini Omni 1.1 Flash: (\d+) s so far, about (\d+) s left\.$/.exec(h.telegram.textOf(user.id, progressId) ?? '');
  expect(refreshed).not.toBeNull();
  expect(Number(refreshed![1]) + Number(refreshed![2])).toBe(90);

  expect((await h.engine.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ id: gen.id })).status).toBe('pending');
  veo.held = false;
  const video = await h.telegram.waitForCall((c) => c.method === 'sendVideo' && Number(c.payload.chat_id) === user.id);
  expect(video.files.video.data.subarray(4, 8).toString('latin1')).toBe('ftyp');
  expect(video.payload.caption).toContain(`Gemini Omni 1.1 Flash · ${omniSeconds(4)} tkn · balance ${balance - omniSeconds(4)}`);
  expect(to(user.id, 'sendChatAction').some((c) => c.payload.action === 'upload_video' && c.at <= video.at)).toBe(true);
  // The progress message goes once the video is out (a separate call, so wait for it rather than race it).
  await waitUntil(() => h.telegram.isDeleted(user.id, progressId), 5000, 'the progress message deleted');
  const done = await h.engine.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ id: gen.id });
  expect(done).toMatchObject({ status: 'completed', tokensSpent: omniSeconds(4) });
  await expectBooksBalanced(account.id);
});

test('speech on a Basic account: voice, text, price, then a wav arrives as a document (sendAudio takes MP3/M4A only)', async () => {
  const telegramId = 4_300_006;
  await createUser(h.engine.db.dataSource, h.engine.services.plans, { name: 'Paid', telegramId, plan: 'basic', planTokens: 100 });
  const user = h.user(telegramId);
  await h.send(user.text('/speech'));
  const picker = lastKeyboard(h.telegram, user.id);
  expect(buttonsOf(picker).some((b) => b.text.startsWith('🔒'))).toBe(false);
  await press(h, user, /:m:gemini-3.8-flash-lite-tts$/);
  const voices = lastKeyboard(h.telegram, user.id);
  expect(buttonsOf(voices).map((b) => b.text)).toEqual(expect.arrayContaining(['Kore', 'Puck', 'Charon']));
  await press(h, user, /:o:Puck$/);
  await h.send(user.text('Hello from the bot.'));
  expect(lastKeyboard(h.telegram, user.id).payload.text).toContain('Voice: Puck');
  await press(h, user, /:ok$/);
  expect(to(user.id, 'sendAudio')).toEqual([]);
  const audio = to(user.id, 'sendDocument').pop()!;
  expect(audio.files.document.name).toMatch(/\.wav$/);
  expect(audio.payload.caption).toContain('Gemini 3.8 Flash-Lite TTS · 1 tkn · balance 99');
  const account = await accountOf(h, user.id);
  const gen = await h.engine.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ userId: account.id });
  expect(gen.params).toMatchObject({ voiceId: 'Puck' });
});

// Last: it replaces the engine's services, as a restarted process would.
test('a pending result is delivered after a restart, by the new process, exactly once', async () => {
  const user = h.user(4_300_005);
  await h.send(user.text('/music'));
  await press(h, user, /:m:musicgen$/);
  await press(h, user, /:o:15$/);
  await h.send(user.text('calm piano'));
  await press(h, user, /:ok$/);
  const account = await accountOf(h, user.id);
  const gen = await h.engine.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ userId: account.id });
  expect(gen.status).toBe('pending');

  // The process dies: a new one (new services, new bot) takes over the database.
  await h.app.stop();
  const fresh = await h.engine.restart();
  const next = createBot(TOKEN, fresh, { botInfo: BOT_INFO, settings: TEST_SETTINGS });
  next.attach();
  await fresh.boss.start();
  await startWorkers(fresh.boss, fresh);
  const audio = await h.telegram.waitForCall((c) => c.method === 'sendAudio' && Number(c.payload.chat_id) === user.id);
  expect(audio.payload.caption).toContain('MusicGen · 9 tkn');
  await next.deps.delivery.tick();
  await next.deps.tasks.drain();
  expect(to(user.id, 'sendAudio')).toHaveLength(1);
  await next.stop();
  h.app.attach();
});
