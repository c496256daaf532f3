// Under an image: Again, Variations, Upscale, Edit; a reply to any photo with an instruction edits it (a question
// still goes to a vision model).
import { createUser } from '../../src/core/accounts/users';
import { getBalance } from '../../src/core/billing/ledger';
import { syntheticImage } from '../../src/sandbox/synthetic';
import type { RecordedCall } from './fake-telegram';
import { BOT_USER } from './fake-telegram';
import { accountOf, BotHarness, buttonsOf, generationsOf, lastKeyboard, press, startBotHarness } from './harness';
import { member, pressIn, textIn, type GroupChat } from './group-updates';
import type { TestUser } from './updates';

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

function results(chatId: number, since = 0): RecordedCall[] {
  return h.telegram.calls
    .slice(since)
    .filter((c) => (c.method === 'sendPhoto' || c.method === 'sendDocument') && Number(c.payload.chat_id) === chatId);
}

/** Presses a button under a delivered result (the press carries the photo or file, as Telegram's does). */
async function pressUnder(user: TestUser, result: RecordedCall, label: string): Promise<void> {
  const button = buttonsOf(result).find((b) => b.text === label);
  if (!button)
    throw new Error(
      `no ${label} under the result: ${buttonsOf(result)
        .map((b) => b.text)
        .join(', ')}`,
    );
  const message = result.result as { message_id: number; photo?: unknown[]; document?: Record<string, unknown>; caption?: string };
  await h.send(user.press(button.callback_data, message));
}

/** Confirms the price of the one-step run just offered; returns its confirmation text. */
async function confirm(user: TestUser): Promise<string> {
  const offer = lastKeyboard(h.telegram, user.id);
  await press(h, user, /:ok$/);
  return String(offer.payload.text);
}

/** A Starter account with enough tokens for several images. */
async function funded(telegramId: number): Promise<TestUser> {
  await createUser(h.engine.db.dataSource, h.engine.services.plans, { name: 'Painter', telegramId, plan: 'free', bonusTokens: 200 });
  return h.user(telegramId);
}

test('an image arrives with Again, Variations, Upscale and Edit; each runs in one step with the price confirmed', async () => {
  const user = await funded(4_394_001);
  await h.send(user.text('/image a red fox'));
  await confirm(user);
  const [first] = results(user.id);
  expect(buttonsOf(first).map((b) => b.text)).toEqual(['🔄 Again', '🎲 Variations', '🔍 Upscale', '✏️ Edit']);
  const [gen] = await generationsOf(h, user.id);
  expect(buttonsOf(first)[0].callback_data).toBe(`img:again:${gen.id}`);

  // Again: the same model, options and prompt; a new image.
  await pressUnder(user, first, '🔄 Again');
  expect(await confirm(user)).toContain('a red fox');
  // Variations: the image itself with its prompt, on an image model that takes a photo.
  await pressUnder(user, first, '🎲 Variations');
  expect(await confirm(user)).toContain('With your photo');
  // Upscale: the upscale tool on it; its result is a file.
  await pressUnder(user, first, '🔍 Upscale');
  expect(await confirm(user)).toContain('Upscale');
  // Edit: asks what to change, then edits the image in one step.
  await pressUnder(user, first, '✏️ Edit');
  expect(h.telegram.sentTexts(user.id).pop()).toContain('What should change?');
  await h.send(user.text('make it night'));
  await confirm(user);

  const gens = await generationsOf(h, user.id);
  expect(gens.map((g) => [g.modelSlug, g.prompt, g.status])).toEqual([
    ['gemini-3.1-flash-image', 'a red fox', 'completed'],
    ['gemini-3.1-flash-image', 'a red fox', 'completed'],
    ['gemini-3.1-flash-image', 'a red fox', 'completed'],
    ['upscale', null, 'completed'],
    ['gemini-3.1-flash-image', 'make it night', 'completed'],
  ]);
  // Variations and Edit took the image as input; Again did not.
  expect(gens.map((g) => (g.delivery as { photos?: number }).photos ?? 0)).toEqual([0, 0, 1, 1, 1]);
  const delivered = results(user.id);
  expect(delivered).toHaveLength(5);
  // An upscale is delivered as a file, with Edit under it (no upscale of an upscale); an edit has no Again.
  expect(delivered[3].method).toBe('sendDocument');
  expect(buttonsOf(delivered[3]).map((b) => b.text)).toEqual(['✏️ Edit']);
  expect(buttonsOf(delivered[4]).map((b) => b.text)).toEqual(['🎲 Variations', '🔍 Upscale', '✏️ Edit']);
  const spent = gens.reduce((n, g) => n + g.tokensSpent, 0);
  expect((await getBalance(h.engine.db.dataSource, (await accountOf(h, user.id)).id)).total).toBe(200 - spent);
});

test('a reply to any photo: an instruction edits it, a question goes to a vision model', async () => {
  const user = await funded(4_394_002);
  const file = h.telegram.addFile(await syntheticImage(320, 240, 'street'), 'photos', 'jpg');
  const photo = user.photo(file);
  await h.send(photo);
  await h.send(user.replyText('make it black and white', photo.message!));
  expect(await confirm(user)).toContain('make it black and white');
  await h.send(user.replyText('what is in this picture?', photo.message!));
  const gens = await generationsOf(h, user.id);
  expect(gens.map((g) => [g.category, g.prompt])).toEqual([
    ['image', 'make it black and white'],
    ['text', 'what is in this picture?'],
  ]);
  expect(gens[0].delivery).toMatchObject({ photos: 1 });
});

test('a result that is gone, or not the presser’s, is refused without running anything', async () => {
  const user = h.user(4_394_003);
  await h.send(user.text('/start'));
  await h.send(user.press('img:again:999999999', { message_id: 1, text: 'x' }));
  expect(h.telegram.callsOf('answerCallbackQuery').pop()!.payload.text).toBe('This result is no longer available.');
  // Another account's generation is not this user's to run again.
  const [theirs] = await generationsOf(h, 4_394_001);
  await h.send(user.press(`img:again:${theirs.id}`, { message_id: 1, text: 'x' }));
  expect(h.telegram.callsOf('answerCallbackQuery').pop()!.payload.text).toBe('This result is no longer available.');
  expect(await generationsOf(h, user.id)).toEqual([]);
});

test('in a group the buttons under a result work only for the member who asked', async () => {
  const GROUP: GroupChat = { id: -1009900000003, type: 'supergroup', title: 'Pictures' };
  const asker = member(4_394_004);
  const other = member(4_394_005);
  await h.send(h.user(asker.id).text('/start'));
  await h.send(h.user(other.id).text('/start'));
  const place = { chat: GROUP };
  await h.send(textIn(place, asker, `/image@${BOT_USER.username} a castle`));
  const offer = h.telegram.calls.filter((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === GROUP.id).pop()!;
  const ok = buttonsOf(offer).find((b) => b.callback_data.endsWith(':ok'))!;
  await h.send(pressIn(place, asker, ok.callback_data, { message_id: (offer.result as { message_id: number }).message_id }));
  const [photo] = results(GROUP.id);
  const again = buttonsOf(photo).find((b) => b.text === '🔄 Again')!;
  const photoId = (photo.result as { message_id: number }).message_id;

  await h.send(pressIn(place, other, again.callback_data, { message_id: photoId }));
  expect(String(h.telegram.callsOf('answerCallbackQuery').pop()!.payload.text)).toContain("another member's request");
  await h.send(pressIn(place, asker, again.callback_data, { message_id: photoId }));
  expect(String(lastKeyboard(h.telegram, GROUP.id).payload.text)).toContain('a castle');
  expect(await generationsOf(h, other.id)).toEqual([]);
});
