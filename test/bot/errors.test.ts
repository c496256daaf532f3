import { I18n } from '../../src/bot/i18n';
import { describeErrorForUser } from '../../src/bot/errors';
import { PlanTooLowError } from '../../src/core/accounts/errors';
import { createUser } from '../../src/core/accounts/users';
import { InsufficientTokensError } from '../../src/core/billing/errors';
import { getBalance } from '../../src/core/billing/ledger';
import { ProviderUnavailableError } from '../../src/core/providers/errors';
import { RateLimitedError } from '../../src/core/limits/rate-limiter';
import { ProviderError } from '../../src/core/providers/types';
import { GenerationEntity, UserEntity } from '../../src/db/entities';
import { avoidWindowEdge } from '../api/harness';
import { BotHarness, buttonsOf, press, startBotHarness, accountOf } from './harness';

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

function lastTo(chatId: number) {
  return h.telegram.calls
    .filter((c) => Number(c.payload.chat_id) === chatId && (c.method === 'sendMessage' || c.method === 'editMessageText'))
    .pop()!;
}

test('402 in Russian: an empty balance is explained with the price and a way to top up', async () => {
  const telegramId = 4_500_001;
  await createUser(h.engine.db.dataSource, h.engine.services.plans, {
    name: 'Оля',
    telegramId,
    planTokens: 0,
    bonusTokens: 0,
    language: 'ru',
  });
  const user = h.user(telegramId, { languageCode: 'ru' });
  await h.send(user.text('Привет!'));
  const reply = lastTo(telegramId);
  expect(reply.payload.text).toMatch(/^💳 Недостаточно токенов: нужно \d+ ток\., на балансе 0\./);
  expect(buttonsOf(reply).map((b) => b.callback_data)).toEqual(['bal:topup', 'bal:plans']);
  const account = await accountOf(h, telegramId);
  expect(await h.engine.db.dataSource.getRepository(GenerationEntity).countBy({ userId: account.id })).toBe(0);

  await press(h, user, /^bal:topup$/);
  const topUp = lastTo(telegramId);
  expect(topUp.payload.text).toContain('Пакеты токенов');
  expect(buttonsOf(topUp).map((b) => b.text)).toContain('100 токенов · 75 ⭐');
});

test('429 in English: the hourly limit says when it resets; nothing runs and nothing is charged', async () => {
  await avoidWindowEdge(3600, 10);
  const user = h.user(4_500_002, { languageCode: 'en' });
  await h.send(user.text('/start'));
  const account = await accountOf(h, user.id);
  const plan = await h.engine.services.plans.get('free');
  for (let i = 0; i < plan.rateLimitHourly; i++) await h.engine.services.limiter.consume(account.id, plan);
  await h.send(user.text('one more question'));
  const reply = lastTo(user.id);
  expect(reply.payload.text).toMatch(
    new RegExp(
      `^⏱ You reached the Starter plan limit of ${plan.rateLimitHourly} requests per hour\\. It resets in \\d+ min \\(at \\d{2}:\\d{2} UTC\\)\\.`,
    ),
  );
  expect((await getBalance(h.engine.db.dataSource, account.id)).total).toBe(50);
});

test('429 in Russian through a tool request: the progress message becomes the limit notice', async () => {
  await avoidWindowEdge(3600, 10);
  const user = h.user(4_500_003, { languageCode: 'ru' });
  await h.send(user.text('/start'));
  const account = await accountOf(h, user.id);
  const plan = await h.engine.services.plans.get('free');
  for (let i = 0; i < plan.rateLimitHourly; i++) await h.engine.services.limiter.consume(account.id, plan);
  const file = h.telegram.addFile(Buffer.from('not even decoded'), 'photos', 'jpg');
  await h.send(user.photo(file, 'раскрась'));
  expect(lastTo(user.id).payload.text).toMatch(/^⏱ Достигнут лимит тарифа Starter: \d+ запросов в час\. Он обновится через \d+ мин/);
});

test('provider overload: an open circuit is explained (wait or switch models) and admins hear of it', async () => {
  const admin = 4_599_999;
  const local = await startBotHarness({ adminIds: [admin] });
  try {
    const user = local.user(4_500_004, { languageCode: 'en' });
    await local.send(user.text('/start'));
    for (let i = 0; i < 5; i++)
      local.engine.services.gate.observe({ provider: 'bfl', index: 0 }, new ProviderError('overloaded', 'upstream 529', 'bfl'));
    await local.send(user.text('/image'));
    await press(local, user, /:m:flux-dev$/);
    await press(local, user, /:o:1024x1024$/);
    // Checked at the confirmation step: the user is told before being asked to confirm (and before any progress message).
    await local.send(user.text('a castle'));
    const reply = local.telegram.calls.filter((c) => Number(c.payload.chat_id) === user.id && c.method === 'sendMessage').pop()!;
    expect(local.telegram.sentTexts(user.id).some((t) => t.startsWith('⏳'))).toBe(false);
    expect(reply.payload.text).toMatch(
      /^⚠️ FLUX\.1 \[dev\] is overloaded right now\. Please wait about \d+ s or choose another model\. Nothing was charged\./,
    );
    const notice = await local.telegram.waitForCall(
      (c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === admin && String(c.payload.text).includes('bfl'),
    );
    expect(notice.payload.text).toContain('Provider bfl is failing');
    const account = await local.engine.db.dataSource.getRepository(UserEntity).findOneByOrFail({ telegramId: String(user.id) });
    expect((await getBalance(local.engine.db.dataSource, account.id)).total).toBe(50);
  } finally {
    await local.close();
  }
});

describe('every error the core raises reads well in both languages', () => {
  const i18n = I18n.load();
  const plans = { get: async (slug: string) => ({ name: slug === 'basic' ? 'Basic' : 'Starter' }) } as never;
  const decision = {
    allowed: false,
    plan: 'free',
    limitHour: 20,
    remainingHour: 0,
    limitDay: 150,
    remainingDay: 100,
    resetHour: 0,
    resetDay: 0,
    retryAfter: 1500,
  };
  const cases: [string, unknown, RegExp, RegExp][] = [
    ['402', new InsufficientTokensError(8, 3), /needs 8 tkn, your balance is 3/, /нужно 8 ток\., на балансе 3/],
    ['429', new RateLimitedError(decision), /20 requests per hour\. It resets in 25 min/, /20 запросов в час\. Он обновится через 25 мин/],
    ['429 day', new RateLimitedError({ ...decision, remainingDay: 0 }), /150 requests per day/, /150 запросов в сутки/],
    ['403', new PlanTooLowError('basic', 'Insufficient plan'), /needs the Basic plan/, /нужен тариф Basic/],
    [
      '503',
      new ProviderUnavailableError('openai', 'gpt-6.1-sol', 'overloaded', 30),
      /GPT-6.1 Sol is overloaded.*about 30 s/,
      /GPT-6.1 Sol сейчас перегружена.*около 30 с/,
    ],
  ];
  test.each(cases)('%s', async (_name, err, en, ru) => {
    expect((await describeErrorForUser(err, i18n.translator('en'), 'en', plans)).text).toMatch(en);
    expect((await describeErrorForUser(err, i18n.translator('ru'), 'ru', plans)).text).toMatch(ru);
  });
});
