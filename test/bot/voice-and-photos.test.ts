import sharp from 'sharp';
import { getBalance } from '../../src/core/billing/ledger';
import { syntheticImage } from '../../src/sandbox/synthetic';
import { toolFromCaption } from '../../src/bot/features/photos';
import { telegramError } from './fake-telegram';
import { BotHarness, buttonsOf, lastKeyboard, press, startBotHarness, accountOf, generationsOf } from './harness';

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

/** Bytes that start like Telegram's voice notes (an Ogg container). */
function oggVoice(bytes = 24_000): Buffer {
  const data = Buffer.alloc(bytes, 7);
  data.write('OggS', 0, 'latin1');
  return data;
}

test('a voice message is downloaded from Telegram, transcribed with the default STT model and answered as text', async () => {
  const user = h.user(4_400_001, { languageCode: 'en' });
  const file = h.telegram.addFile(oggVoice(), 'voice', 'oga');
  await h.send(user.voice(file));

  expect(h.telegram.callsOf('getFile').map((c) => c.payload.file_id)).toContain(file.file_id);
  const [gen] = await generationsOf(h, user.id);
  expect(gen).toMatchObject({ status: 'completed', modelSlug: 'gpt-transcribe', category: 'stt', source: 'bot', tokensSpent: 2 });
  expect(gen.resultText).toContain('voice.ogg');
  expect(gen.resultText).toContain(`${file.file_size} bytes`);
  const texts = h.telegram.sentTexts(user.id);
  const answer = texts.find((t) => t.startsWith('Sandbox transcription'))!;
  expect(answer).toContain('GPT Transcribe · 2 tkn · balance 48');
  expect((await getBalance(h.engine.db.dataSource, gen.userId)).total).toBe(48);
});

test('a file over the Bot API download limit is reported in the user language before anything runs', async () => {
  const user = h.user(4_400_007, { languageCode: 'en' });
  const file = h.telegram.addFile(oggVoice(), 'voice', 'oga');
  h.telegram.failNext('getFile', telegramError('error-400-file-is-too-big'));
  await h.send(user.voice(file));
  const edits = h.telegram.callsOf('editMessageText').filter((c) => Number(c.payload.chat_id) === user.id);
  expect(String(edits.pop()!.payload.text)).toBe('The file is too large: bots can download files of up to 20 MB.');
  expect(await generationsOf(h, user.id)).toHaveLength(0);
});

test('a file Telegram cannot serve is reported in the user language and nothing is charged', async () => {
  const user = h.user(4_400_002, { languageCode: 'ru' });
  await h.send(user.voice({ file_id: 'gone-file', file_unique_id: 'gone', file_size: 1000 }));
  const edits = h.telegram.callsOf('editMessageText').filter((c) => Number(c.payload.chat_id) === user.id);
  expect(String(edits.pop()!.payload.text)).toContain('Не удалось скачать файл');
  expect(await generationsOf(h, user.id)).toHaveLength(0);
  expect((await getBalance(h.engine.db.dataSource, (await accountOf(h, user.id)).id)).total).toBe(50);
});

test('a photo captioned "upscale 4x" runs the tool at once and comes back as a file', async () => {
  const user = h.user(4_400_003);
  const file = h.telegram.addFile(await syntheticImage(256, 192, 'in'), 'photos', 'jpg');
  await h.send(user.photo(file, 'upscale 4x'));
  const [gen] = await generationsOf(h, user.id);
  expect(gen).toMatchObject({ status: 'completed', modelSlug: 'upscale', tokensSpent: 1 });
  expect(gen.params).toMatchObject({ scale: 4 });
  const doc = h.telegram.callsOf('sendDocument').find((c) => Number(c.payload.chat_id) === user.id)!;
  const meta = await sharp(doc.files.document.data).metadata();
  expect([meta.width, meta.height]).toEqual([1024, 768]);
  expect(doc.payload.caption).toContain('Upscale · 1 tkn');
});

test('"ocr" on a photo answers with the recognised text', async () => {
  const user = h.user(4_400_004);
  const file = h.telegram.addFile(await syntheticImage(400, 120, 'HELLO'), 'photos', 'jpg');
  await h.send(user.photo(file, 'ocr'));
  const [gen] = await generationsOf(h, user.id);
  expect(gen).toMatchObject({ status: 'completed', modelSlug: 'text-ocr' });
  const last = h.telegram.sentTexts(user.id).pop()!;
  expect(last).toContain('Text recognition · 1 tkn');
});

test('face-swap asks for the second photo, shows the price, and swaps', async () => {
  const user = h.user(4_400_005);
  const face = h.telegram.addFile(await syntheticImage(300, 300, 'face'), 'photos', 'jpg');
  const target = h.telegram.addFile(await syntheticImage(320, 240, 'target'), 'photos', 'jpg');
  await h.send(user.photo(face, 'face swap'));
  expect(String(h.telegram.calls.filter((c) => Number(c.payload.chat_id) === user.id).pop()!.payload.text)).toContain(
    'Now send the photo to put that face on',
  );
  await h.send(user.photo(target));
  const confirm = lastKeyboard(h.telegram, user.id);
  expect(confirm.payload.text).toContain('Price: 1 tkn');
  await press(h, user, /:ok$/);
  const [gen] = await generationsOf(h, user.id);
  expect(gen).toMatchObject({ status: 'completed', modelSlug: 'face-swap', tokensSpent: 1 });
  expect(h.telegram.callsOf('sendPhoto').some((c) => Number(c.payload.chat_id) === user.id)).toBe(true);
});

test('a photo without a caption opens the tool picker for that photo', async () => {
  const user = h.user(4_400_006);
  const file = h.telegram.addFile(await syntheticImage(200, 200, 'bw'), 'photos', 'jpg');
  await h.send(user.photo(file));
  const picker = lastKeyboard(h.telegram, user.id);
  expect(picker.payload.text).toContain('What should I do with this photo?');
  expect(buttonsOf(picker).map((b) => b.text)).toContain('Colorize · 1 tkn');
  await press(h, user, /:m:colorize$/);
  await press(h, user, /:ok$/);
  const [gen] = await generationsOf(h, user.id);
  expect(gen).toMatchObject({ status: 'completed', modelSlug: 'colorize' });
});

test('captions are read in English and Russian', () => {
  expect(toolFromCaption('Upscale 2x')).toEqual({ tool: 'upscale', scale: 2 });
  expect(toolFromCaption('увеличь')).toEqual({ tool: 'upscale', scale: undefined });
  expect(toolFromCaption('убери фон')).toEqual({ tool: 'remove-bg' });
  expect(toolFromCaption('remove background')).toEqual({ tool: 'remove-bg' });
  expect(toolFromCaption('раскрась')).toEqual({ tool: 'colorize' });
  expect(toolFromCaption('style: watercolor')).toEqual({ tool: 'style-transfer', prompt: 'watercolor' });
  expect(toolFromCaption('стиль — акварель')).toEqual({ tool: 'style-transfer', prompt: 'акварель' });
  expect(toolFromCaption('inpaint: a red hat')).toEqual({ tool: 'inpaint', prompt: 'a red hat' });
  expect(toolFromCaption('замени лицо')).toEqual({ tool: 'face-swap' });
  expect(toolFromCaption('a nice day at the beach')).toBeUndefined();
});
