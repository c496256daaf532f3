// Music arrives in Telegram's music player: sendAudio with the track's title, length and performer, never as a
// plain file.
import { GenerationEntity } from '../../src/db/entities';
import { trackInfo } from '../../src/bot/services/delivery';
import { BotHarness, accountOf, press, startBotHarness } from './harness';

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness();
  await h.engine.startWorkers();
});
afterAll(() => h.close());

test('a MusicGen track is sent with sendAudio: title from the prompt, duration, performer = the model', async () => {
  const user = h.user(4_800_001);
  await h.send(user.text('/music'));
  await press(h, user, /:m:musicgen$/);
  await press(h, user, /:o:15$/);
  await h.send(user.text('calm piano by the sea at night'));
  await press(h, user, /:ok$/);

  const audio = await h.telegram.waitForCall((c) => c.method === 'sendAudio' && Number(c.payload.chat_id) === user.id);
  expect(audio.payload).toMatchObject({ title: 'calm piano by the sea at night', performer: 'MusicGen', duration: 15 });
  expect(audio.files.audio.name).toMatch(/\.mp3$/);
  expect(String(audio.payload.caption)).toContain('MusicGen · 9 tkn');
  // Telegram took it as a track (an MP3), not as a file.
  expect(audio.result).toMatchObject({ audio: { title: 'calm piano by the sea at night', duration: 15, mime_type: 'audio/mpeg' } });
  expect(h.telegram.callsOf('sendDocument').filter((c) => Number(c.payload.chat_id) === user.id)).toEqual([]);

  const account = await accountOf(h, user.id);
  const gen = await h.engine.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ userId: account.id });
  expect(gen).toMatchObject({ status: 'completed', resultMime: 'audio/mpeg', durationSeconds: 15 });
  expect(gen.params).toMatchObject({ audioFormat: 'mp3' });
});

test('a long prompt becomes a short one-line title', () => {
  const info = trackInfo({
    modelSlug: 'vendor-music',
    prompt: `An epic\n orchestral ${'very '.repeat(30)}long piece`,
    durationSeconds: 60,
  });
  expect(info.performer).toBe('Eleven Music');
  expect(info.duration).toBe(60);
  expect([...info.title!].length).toBe(64);
  expect(info.title).toMatch(/^An epic orchestral very .*…$/);
});
