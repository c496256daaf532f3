import { getBalance, grantBonus } from '../../src/core/billing/ledger';
import { requireModel } from '../../src/core/catalog/catalog';
import { quoteGeneration } from '../../src/core/catalog/pricing';
import { createUser } from '../../src/core/accounts/users';
import { GenerationEntity, UserSettingsEntity } from '../../src/db/entities';
import type { RecordedCall } from './fake-telegram';
import { accountOf, BotHarness, buttonsOf, callsSince, generationsOf, lastKeyboard, press, startBotHarness } from './harness';

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

function to(chatId: number, method: string): RecordedCall[] {
  return h.telegram.callsOf(method).filter((c) => Number(c.payload.chat_id) === chatId);
}

/** Starter's first image model at its defaults (its price follows the vendor's list price). */
const IMAGE_PRICE = quoteGeneration(requireModel('gemini-3.1-flash-image'));

async function balanceOf(telegramId: number): Promise<number> {
  return (await getBalance(h.engine.db.dataSource, (await accountOf(h, telegramId)).id)).total;
}

test('/image <prompt> runs the default model in one step: one message with the price, then the photo, billed the quote', async () => {
  const user = h.user(4_390_001);
  await h.send(user.text('/start'));
  const command = user.text('/image a red fox in the snow');
  await h.send(command);
  const confirm = lastKeyboard(h.telegram, user.id);
  // Starter's first image model, with its own defaults; no model or size step.
  expect(confirm.payload.text).toContain('Gemini 3.1 Flash Image');
  expect(confirm.payload.text).toContain(`Price: ${IMAGE_PRICE} tkn (balance 50)`);
  expect(confirm.payload.text).toContain('a red fox in the snow');
  expect(confirm.payload.reply_parameters).toMatchObject({ message_id: command.message!.message_id });
  expect(buttonsOf(confirm).map((b) => b.text)).toEqual([`✅ Generate · ${IMAGE_PRICE} tkn`, '⚙️ Options', '✖ Cancel']);
  expect(await generationsOf(h, user.id)).toEqual([]);

  await press(h, user, /:ok$/);
  const photo = to(user.id, 'sendPhoto').pop()!;
  expect(photo.payload.caption).toContain(`Gemini 3.1 Flash Image · ${IMAGE_PRICE} tkn · balance ${50 - IMAGE_PRICE}`);
  const [gen] = await generationsOf(h, user.id);
  expect(gen).toMatchObject({
    modelSlug: 'gemini-3.1-flash-image',
    prompt: 'a red fox in the snow',
    status: 'completed',
    tokensSpent: IMAGE_PRICE,
  });
  expect(await balanceOf(user.id)).toBe(50 - IMAGE_PRICE);
});

test('the next one-step run takes the model and options the wizard last ran with', async () => {
  const user = h.user(4_390_002);
  await h.send(user.text('/image'));
  await press(h, user, /:m:flux-dev$/);
  await press(h, user, /:o:768x1344$/);
  await h.send(user.text('a lighthouse'));
  await press(h, user, /:ok$/);
  expect(to(user.id, 'sendPhoto')).toHaveLength(1);

  await h.send(user.text('/image a harbour at night'));
  const confirm = lastKeyboard(h.telegram, user.id);
  expect(confirm.payload.text).toContain('FLUX.1 [dev]');
  expect(confirm.payload.text).toContain('Size: 768x1344');
  await press(h, user, /:ok$/);
  const gens = await generationsOf(h, user.id);
  expect(gens.map((g) => [g.modelSlug, g.params.size, g.prompt])).toEqual([
    ['flux-dev', '768x1344', 'a lighthouse'],
    ['flux-dev', '768x1344', 'a harbour at night'],
  ]);
});

test('"don\'t ask below" in /settings: a run within the price starts at once; a dearer one still asks', async () => {
  const user = h.user(4_390_003);
  await h.send(user.text('/settings'));
  expect(lastKeyboard(h.telegram, user.id).payload.text).toContain('ask before every run');
  await press(h, user, /^set:ask:10$/);
  expect(h.telegram.calls.filter((c) => c.method === 'editMessageText').pop()!.payload.text).toContain('start at once up to 10 tkn');
  const account = await accountOf(h, user.id);
  expect(await h.engine.db.dataSource.getRepository(UserSettingsEntity).findOneByOrFail({ userId: account.id })).toMatchObject({
    confirmAbove: 10,
  });

  // Music (9 tkn) is within 10: it starts at once.
  const mark = h.telegram.calls.length;
  await h.send(user.text('/music calm piano'));
  const since = callsSince(h.telegram, mark);
  expect(since.some((c) => buttonsOf(c).some((b) => /:ok$/.test(b.callback_data)))).toBe(false);
  expect((await generationsOf(h, user.id)).map((g) => g.modelSlug)).toEqual(['musicgen']);

  // The default image model is dearer than 10: the price is asked for.
  expect(IMAGE_PRICE).toBeGreaterThan(10);
  await h.send(user.text('/image a blue bird'));
  const confirm = lastKeyboard(h.telegram, user.id);
  expect(confirm.payload.text).toContain('Gemini 3.1 Flash Image');
  expect(confirm.payload.text).toContain(`Price: ${IMAGE_PRICE} tkn`);
  await press(h, user, /:x$/);
  expect((await generationsOf(h, user.id)).map((g) => g.modelSlug)).toEqual(['musicgen']);
});

test('Options leaves for the wizard; a bare command opens the wizard; cancelling charges nothing', async () => {
  const user = h.user(4_390_004);
  await h.send(user.text('/start'));
  // The cheapest video (4 s of Gemini Omni 1.1 Flash) costs more than the 50-token Starter grant.
  await grantBonus(h.engine.db.dataSource, (await accountOf(h, user.id)).id, 100, 'one-step-video', 'test');
  await h.send(user.text('/image a cat'));
  await press(h, user, /^menu:image$/);
  expect(lastKeyboard(h.telegram, user.id).payload.text).toContain('Choose an image model');
  await h.send(user.text('/video'));
  expect(lastKeyboard(h.telegram, user.id).payload.text).toContain('Choose a video model');
  await h.send(user.text('/cancel'));
  expect(await generationsOf(h, user.id)).toEqual([]);
  expect(await balanceOf(user.id)).toBe(150);
});

test('/speak <text> runs speech in one step on a plan that has it; Starter is told which plan does', async () => {
  const starter = h.user(4_390_005);
  await h.send(starter.text('/speak hello there'));
  expect(h.telegram.sentTexts(starter.id).pop()).toContain('Basic');
  expect(await generationsOf(h, starter.id)).toEqual([]);

  const telegramId = 4_390_006;
  await createUser(h.engine.db.dataSource, h.engine.services.plans, { name: 'Paid', telegramId, plan: 'basic', planTokens: 100 });
  const paid = h.user(telegramId);
  await h.send(paid.text('/speak Hello from one step.'));
  const confirm = lastKeyboard(h.telegram, paid.id);
  expect(confirm.payload.text).toContain('Voice: default');
  await press(h, paid, /:ok$/);
  const [gen] = await generationsOf(h, paid.id);
  expect(gen).toMatchObject({ category: 'tts', prompt: 'Hello from one step.', status: 'completed' });
});

test('a prompt the model refuses is answered and nothing runs', async () => {
  const user = h.user(4_390_007);
  await h.send(user.text(`/image ${'x'.repeat(5000)}`));
  expect(h.telegram.sentTexts(user.id).pop()).toMatch(/too long/i);
  expect(await h.engine.db.dataSource.getRepository(GenerationEntity).count({ where: { userId: (await accountOf(h, user.id)).id } })).toBe(
    0,
  );
});

test('a kept model the plan no longer opens, or options the model no longer takes, give way to the defaults', async () => {
  const user = h.user(4_390_008);
  await h.send(user.text('/start'));
  const account = await accountOf(h, user.id);
  const { settings } = h.engine.services;
  await settings.rememberMediaPreset(account.id, 'image', { model: 'flux-pro-1.1', size: '1024x1024' });
  await h.send(user.text('/image a tree'));
  expect(lastKeyboard(h.telegram, user.id).payload.text).toContain('Gemini 3.1 Flash Image');

  await settings.rememberMediaPreset(account.id, 'image', { model: 'flux-dev', size: '9999x1' });
  await h.send(user.text('/image a tree'));
  const confirm = lastKeyboard(h.telegram, user.id);
  expect(confirm.payload.text).toContain('FLUX.1 [dev]');
  expect(confirm.payload.text).toContain('Size: 1024x1024');
});
