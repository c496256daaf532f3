import { Webhook } from 'standardwebhooks';
import { UserEntity } from '../../src/db/entities';
import { BotHarness, startBotHarness } from '../bot/harness';
import { eventually, Receiver, startReceiver } from './receiver';

// The bot door: its generations join the account's event stream, and a failing endpoint reaches the admins.
const ADMIN = 4_900_001;
let h: BotHarness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startBotHarness({
    adminIds: [ADMIN],
    env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_BASE_MS: '300', WEBHOOK_RETRY_WINDOW_MS: '1500' },
  });
  await h.engine.startWorkers();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

test('a chat in the bot fires generation.completed for the account; a failing endpoint is reported to the admins', async () => {
  const user = h.user(4_900_010, { languageCode: 'en' });
  await h.send(user.text('/start'));
  const account = await h.engine.db.dataSource.getRepository(UserEntity).findOneByOrFail({ telegramId: String(user.id) });
  const endpoint = await h.engine.services.webhooks.endpoints.create(account.id, { url: receiver.url, events: ['generation.completed'] });

  await h.send(user.text('Tell me about otters'));
  const [got] = await receiver.waitFor(1);
  const body = new Webhook(endpoint.secret).verify(got.body, got.headers) as Record<string, unknown>;
  expect(body).toMatchObject({ event: 'generation.completed', status: 'completed', model_slug: 'gpt-6-luna', result_url: null });
  expect(String(body.result_text)).toContain('Tell me about otters');

  receiver.respond = () => 500;
  await h.engine.services.webhooks.sendTest(account.id, endpoint.id);
  const alert = await eventually(async () => {
    await h.app.deps.tasks.drain();
    return h.telegram
      .callsOf('sendMessage')
      .find((c) => Number(c.payload.chat_id) === ADMIN && String(c.payload.text).includes(`Webhook #${endpoint.id}`));
  });
  expect(String(alert.payload.text)).toContain(receiver.url);
  expect(String(alert.payload.text)).toContain('HTTP 500');
});
