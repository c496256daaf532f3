import { startPolling } from '../../src/bot';
import { FakeTelegram } from './fake-telegram';
import { BotHarness, startBotHarness } from './harness';

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

test('long polling through @grammyjs/runner: drops the webhook, registers commands in both languages, answers updates', async () => {
  const user = h.user(4_900_001, { languageCode: 'ru' });
  const mark = h.telegram.calls.length;
  const runner = await startPolling(h.app);
  let update;
  try {
    update = user.text('/help');
    h.telegram.queueUpdate(update);
    const reply = await h.telegram.waitForCall((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === user.id, 10_000);
    expect(reply.payload.text).toContain('Как это работает');
  } finally {
    await runner.stop();
  }
  const since = h.telegram.calls.slice(mark);
  expect(since.filter((c) => c.method === 'deleteWebhook')).toHaveLength(1);
  const all = since.filter((c) => c.method === 'setMyCommands');
  const scopeOf = (c: (typeof all)[number]) => (c.payload.scope as { type: string } | undefined)?.type ?? 'default';
  const commands = all.filter((c) => scopeOf(c) === 'default');
  expect(commands.map((c) => c.payload.language_code ?? null).sort()).toEqual(['en', 'ru', null].sort());
  const ru = commands.find((c) => c.payload.language_code === 'ru')!;
  expect(ru.payload.commands).toContainEqual({ command: 'image', description: 'Создать изображение' });
  // Groups get what works there (no account screens); their admins also /off and /on.
  const names = (scope: string) =>
    (all.find((c) => scopeOf(c) === scope && c.payload.language_code === 'en')!.payload.commands as { command: string }[]).map(
      (c) => c.command,
    );
  expect(names('all_group_chats')).toEqual(['new', 'image', 'video', 'speech', 'speak', 'music', 'tools', 'help', 'stop']);
  expect(names('all_chat_administrators')).toEqual([
    'new',
    'image',
    'video',
    'speech',
    'speak',
    'music',
    'tools',
    'help',
    'stop',
    'off',
    'on',
  ]);
  // The update was confirmed: a later getUpdates asked past it.
  expect(offsets(h)).toContain(update!.update_id + 1);
  // The stop of a draft is asked for by name (Telegram holds it back otherwise), as in webhook mode.
  const polls = since.filter((c) => c.method === 'getUpdates');
  expect(polls.every((c) => (c.payload.allowed_updates as string[]).includes('stopped_message_generation'))).toBe(true);
});

test('webhook mode asks for the stop of drafts too; without it the fake Bot API withholds the update', async () => {
  expect(h.telegram.subscribedUpdates).toContain('stopped_message_generation');
  const stop = { update_id: 1, stopped_message_generation: { chat: { id: 1, type: 'private', first_name: 'A' }, draft_id: 7 } };
  expect(h.telegram.delivers(stop)).toBe(true);
  const bare = await FakeTelegram.start('1:bare');
  try {
    expect(bare.delivers(stop)).toBe(false);
    expect(bare.delivers({ update_id: 2, message: {} } as { update_id: number })).toBe(true);
  } finally {
    await bare.close();
  }
});

function offsets(harness: BotHarness): number[] {
  return harness.telegram.callsOf('getUpdates').map((c) => Number(c.payload.offset ?? 0));
}
