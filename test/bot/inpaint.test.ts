// Inpainting from the bot: Skip (repaint the transparent area) is offered only for an image that has one; an
// opaque image is asked for a mask, with no Skip.
import sharp from 'sharp';
import { syntheticImage } from '../../src/sandbox/synthetic';
import { pngWithHole } from '../support/images';
import { BotHarness, buttonsOf, generationsOf, lastKeyboard, press, startBotHarness } from './harness';

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

function sentTo(chatId: number, method: string) {
  return h.telegram.callsOf(method).filter((c) => Number(c.payload.chat_id) === chatId);
}

test('a PNG with a transparent area: Skip repaints that area and the result is delivered', async () => {
  const user = h.user(4_700_001);
  const file = h.telegram.addFile(await pngWithHole(), 'documents', 'png');
  await h.send(user.document(file, 'image/png', 'room.png', 'inpaint: a red chair'));

  const ask = lastKeyboard(h.telegram, user.id);
  expect(String(ask.payload.text)).toMatch(/skip to repaint the image's transparent area/);
  expect(buttonsOf(ask).map((b) => b.text)).toContain('Skip: repaint the transparent area ›');
  await press(h, user, /:skip$/);

  const confirm = lastKeyboard(h.telegram, user.id);
  expect(String(confirm.payload.text)).toContain('Repaints the transparent area');
  expect(String(confirm.payload.text)).toContain('Price: 3 tkn');
  await press(h, user, /:ok$/);

  const [gen] = await generationsOf(h, user.id);
  expect(gen).toMatchObject({ status: 'completed', modelSlug: 'inpaint', tokensSpent: 3 });
  const delivered = [...sentTo(user.id, 'sendPhoto'), ...sentTo(user.id, 'sendDocument')];
  expect(delivered).toHaveLength(1);
  expect(String(delivered[0].payload.caption)).toContain('Inpaint · 3 tkn');
});

test('an opaque photo: the wizard asks for a mask and offers no Skip; with a mask it runs', async () => {
  const user = h.user(4_700_002);
  const photo = h.telegram.addFile(await syntheticImage(256, 256, 'room'), 'photos', 'jpg');
  await h.send(user.photo(photo, 'inpaint: a red chair'));

  const ask = lastKeyboard(h.telegram, user.id);
  expect(String(ask.payload.text)).toContain('This image has no transparent area, so it needs one');
  expect(buttonsOf(ask).map((b) => b.callback_data)).not.toContainEqual(expect.stringMatching(/:skip$/));
  expect(buttonsOf(ask).map((b) => b.text)).toEqual(['✖ Cancel']);

  // A Skip press forged from an older keyboard is not taken either: the step still waits for the mask.
  await h.send(user.press(buttonsOf(ask)[0].callback_data.replace(/:x$/, ':skip'), { message_id: Number(ask.payload.message_id) }));
  expect(await generationsOf(h, user.id)).toHaveLength(0);

  const mask = await sharp({ create: { width: 128, height: 128, channels: 3, background: '#000' } })
    .composite([{ input: { create: { width: 32, height: 32, channels: 3, background: '#fff' } }, left: 48, top: 48 }])
    .jpeg()
    .toBuffer();
  await h.send(user.photo(h.telegram.addFile(mask, 'photos', 'jpg')));
  const confirm = lastKeyboard(h.telegram, user.id);
  expect(String(confirm.payload.text)).toContain('With your mask');
  await press(h, user, /:ok$/);
  const [gen] = await generationsOf(h, user.id);
  expect(gen).toMatchObject({ status: 'completed', modelSlug: 'inpaint', tokensSpent: 3 });
});
