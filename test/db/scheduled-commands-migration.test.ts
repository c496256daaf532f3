import { createDataSource } from '../../src/db/data-source';
import { createEmptyDatabase, type EmptyDatabase } from '../support/databases';

const MIGRATION = 'ScheduledCommands1764240000000';
let empty: EmptyDatabase;
let url: string;

beforeAll(async () => {
  empty = await createEmptyDatabase('ng_sched_cmd');
  url = empty.url;
});
afterAll(() => empty.drop());

test('stored /generate bodies become version 1 commands, and back down again', async () => {
  const ds = createDataSource(url, { poolSize: 2 });
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
    // Back to the schema before the migration (undoing any that came after it), where rows hold the raw body.
    const executed = async () => (await ds.query(`SELECT name FROM schema_migrations`)).map((r: { name: string }) => r.name);
    while ((await executed()).includes(MIGRATION)) await ds.undoLastMigration({ transaction: 'each' });

    const [{ id: userId }] = await ds.query(`INSERT INTO users (name, next_refill_at) VALUES ('old', now()) RETURNING id`);
    const bodies = [
      { model: 'flux-dev', prompt: 'sky', size: ' 1024X1024 ', seed: null, params: null },
      { model: ' tts-1 ', prompt: 'hello', params: { voice_id: ' alloy ', format: 'MP3', speed: 1.5 } },
      { model: 'face-swap', params: { source_image_url: 'https://a.test/1.png', target_image_url: ' https://a.test/2.png ' } },
      { model: 'upscale', image_url: 'data:image/png;base64,AAAA', params: { scale: 4, mask_url: null } },
    ];
    for (const body of bodies) {
      await ds.query(`INSERT INTO schedules (user_id, name, request, interval_minutes, next_run_at) VALUES ($1, 'old', $2, 60, now())`, [
        userId,
        JSON.stringify(body),
      ]);
    }

    await ds.runMigrations({ transaction: 'each' });
    const commands = (await ds.query(`SELECT command FROM schedules ORDER BY id`)).map((r: { command: unknown }) => r.command);
    expect(commands).toEqual([
      { version: 1, request: { model: 'flux-dev', prompt: 'sky', size: '1024x1024', images: {} } },
      { version: 1, request: { model: 'tts-1', prompt: 'hello', voiceId: 'alloy', audioFormat: 'mp3', speed: 1.5, images: {} } },
      {
        version: 1,
        request: {
          model: 'face-swap',
          images: {
            'params.source_image_url': { url: 'https://a.test/1.png' },
            'params.target_image_url': { url: 'https://a.test/2.png' },
          },
        },
      },
      { version: 1, request: { model: 'upscale', scale: 4, images: { image_url: { url: 'data:image/png;base64,AAAA' } } } },
    ]);

    while ((await executed()).includes(MIGRATION)) await ds.undoLastMigration({ transaction: 'each' });
    const restored = (await ds.query(`SELECT request FROM schedules ORDER BY id`)).map((r: { request: unknown }) => r.request);
    expect(restored).toEqual([
      { model: 'flux-dev', prompt: 'sky', size: '1024x1024' },
      { model: 'tts-1', prompt: 'hello', params: { voice_id: 'alloy', format: 'mp3', speed: 1.5 } },
      { model: 'face-swap', params: { source_image_url: 'https://a.test/1.png', target_image_url: 'https://a.test/2.png' } },
      { model: 'upscale', image_url: 'data:image/png;base64,AAAA', params: { scale: 4 } },
    ]);
  } finally {
    await ds.destroy();
  }
});
