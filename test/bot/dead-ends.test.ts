import { createUser } from '../../src/core/accounts/users';
import { grantBonus } from '../../src/core/billing/ledger';
import { listModels, requireModel } from '../../src/core/catalog/catalog';
import { priceRange, quoteGeneration } from '../../src/core/catalog/pricing';
import { syntheticImage } from '../../src/sandbox/synthetic';
import { BotHarness, buttonsOf, lastKeyboard, press, startBotHarness, accountOf, generationsOf } from './harness';
import type { TestUser } from './updates';

// No dead ends: every cancel leads back to the menu, refusals (limits, balance) come before the user's effort and
// before any "working on it" message, confirmations show only what the tool uses, and a new photo replaces the
// pending one.

let h: BotHarness;
const FLUX = quoteGeneration(requireModel('flux-dev'));
const omniSeconds = (s: number) => quoteGeneration(requireModel('gemini-omni-1.1-flash'), { durationSeconds: s });

/** A Starter account with enough tokens for every Starter wizard (a video costs more than the 50-token grant). */
async function richStarter(telegramId: number, languageCode: string) {
  const user = h.user(telegramId, { languageCode });
  await h.send(user.text('/start'));
  await grantBonus(h.engine.db.dataSource, (await accountOf(h, telegramId)).id, 500, `dead-ends-${telegramId}`, 'test');
  return user;
}

beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

/** The newest message or edit the chat received. */
function lastShown(user: TestUser) {
  const calls = h.telegram.calls.filter(
    (c) => Number(c.payload.chat_id) === user.id && (c.method === 'sendMessage' || c.method === 'editMessageText'),
  );
  return calls[calls.length - 1];
}

function expectCancelledWithMenu(user: TestUser) {
  const shown = lastShown(user);
  expect(shown.payload.text).toBe('Cancelled.');
  expect(buttonsOf(shown).map((b) => b.callback_data)).toEqual(['menu:main']);
}

/** Uses up the account's hourly requests. */
async function exhaustHourlyLimit(telegramId: number) {
  const account = await accountOf(h, telegramId);
  const plan = await h.engine.services.plans.get(account.planSlug);
  for (let i = 0; i < plan.rateLimitHourly; i++) await h.engine.services.limiter.consume(account.id, plan);
}

const progressMessages = (user: TestUser) => h.telegram.sentTexts(user.id).filter((t) => t.startsWith('⏳'));

test.each(['/image', '/video', '/speech', '/music', '/tools'])(
  'cancelling the %s wizard offers the way back to the menu',
  async (command) => {
    const user = await richStarter(4_950_000 + ['/image', '/video', '/speech', '/music', '/tools'].indexOf(command), 'en');
    await h.send(user.text(command));
    await press(h, user, /:x$/);
    expectCancelledWithMenu(user);
  },
);

test('cancel at a later step, at the confirmation, with /cancel, and in the tools wizard of a photo: always the menu', async () => {
  const user = h.user(4_950_010, { languageCode: 'en' });
  await h.send(user.text('/image'));
  await press(h, user, /:m:flux-dev$/);
  await press(h, user, /:x$/);
  expectCancelledWithMenu(user);

  await h.send(user.text('/image'));
  await press(h, user, /:m:flux-dev$/);
  await press(h, user, /:o:1024x1024$/);
  await h.send(user.text('a lighthouse at night'));
  expect(lastKeyboard(h.telegram, user.id).payload.text).toContain(`Price: ${FLUX} tkn`);
  await press(h, user, /:x$/);
  expectCancelledWithMenu(user);

  await h.send(user.text('/music'));
  await press(h, user, /:m:musicgen$/);
  await h.send(user.text('/cancel'));
  expectCancelledWithMenu(user);

  const file = h.telegram.addFile(await syntheticImage(120, 120, 'x'), 'photos', 'jpg');
  await h.send(user.photo(file));
  await press(h, user, /:x$/);
  expectCancelledWithMenu(user);
  expect(await generationsOf(h, user.id)).toHaveLength(0);

  // The Russian cancel reads naturally too.
  const ru = await richStarter(4_950_011, 'ru');
  await h.send(ru.text('/video'));
  await press(h, ru, /:x$/);
  const shown = lastShown(ru);
  expect(shown.payload.text).toBe('Отменено.');
  expect(buttonsOf(shown).map((b) => b.text)).toEqual(['☰ Меню']);
});

test('a used-up hourly limit is said when the wizard opens, not after it', async () => {
  const user = h.user(4_950_020, { languageCode: 'en' });
  await h.send(user.text('/start'));
  await exhaustHourlyLimit(user.id);
  await h.send(user.text('/image'));
  expect(lastShown(user).payload.text).toMatch(/^⏱ You reached the Starter plan limit of 20 requests per hour\./);
  expect(h.telegram.sentTexts(user.id).some((t) => t.includes('Choose an image model'))).toBe(false);
  // A captioned tool is refused before its progress message too.
  const file = h.telegram.addFile(await syntheticImage(100, 100, 'y'), 'photos', 'jpg');
  await h.send(user.photo(file, 'colorize'));
  expect(lastShown(user).payload.text).toMatch(/^⏱ You reached/);
  expect(progressMessages(user)).toEqual([]);
  expect(await generationsOf(h, user.id)).toHaveLength(0);
});

test('a balance below the cheapest model is said when the wizard opens', async () => {
  const telegramId = 4_950_030;
  await createUser(h.engine.db.dataSource, h.engine.services.plans, { name: 'Broke', telegramId, bonusTokens: 2 });
  const user = h.user(telegramId, { languageCode: 'en' });
  await h.send(user.text('/image'));
  const shown = lastShown(user);
  const cheapest = Math.min(...listModels({ category: 'image', minPlan: 'free' }).map((m) => priceRange(m).min));
  expect(shown.payload.text).toBe(
    `💳 Not enough tokens: this needs ${cheapest} tkn, your balance is 2. Top up or choose a plan to continue.`,
  );
  expect(buttonsOf(shown).map((b) => b.callback_data)).toEqual(['bal:topup', 'bal:plans']);
  expect(h.telegram.sentTexts(user.id).some((t) => t.includes('Choose an image model'))).toBe(false);
});

test('the price is checked against the balance again at the confirmation, before it is shown and before any progress', async () => {
  const telegramId = 4_950_040;
  // Enough for the shortest clip (the wizard opens), not for the 8 seconds chosen.
  const balance = omniSeconds(4);
  await createUser(h.engine.db.dataSource, h.engine.services.plans, { name: 'Some', telegramId, bonusTokens: balance });
  const user = h.user(telegramId, { languageCode: 'en' });
  await h.send(user.text('/video'));
  await press(h, user, /:m:gemini-omni-1.1-flash$/);
  await press(h, user, /:o:16:9$/);
  await press(h, user, /:o:8$/);
  await press(h, user, /:skip$/);
  await h.send(user.text('waves at sunset'));
  expect(lastShown(user).payload.text).toBe(
    `💳 Not enough tokens: this needs ${omniSeconds(8)} tkn, your balance is ${balance}. Top up or choose a plan to continue.`,
  );
  expect(h.telegram.sentTexts(user.id).some((t) => t.startsWith('Gemini Omni 1.1 Flash\n'))).toBe(false);
  expect(progressMessages(user)).toEqual([]);
  expect(await generationsOf(h, user.id)).toHaveLength(0);
});

test('a limit reached between the confirmation and the press is said instead of "working on it"', async () => {
  const user = h.user(4_950_050, { languageCode: 'en' });
  await h.send(user.text('/image'));
  await press(h, user, /:m:flux-dev$/);
  await press(h, user, /:o:1024x1024$/);
  await h.send(user.text('a red fox'));
  await exhaustHourlyLimit(user.id);
  await press(h, user, /:ok$/);
  expect(lastShown(user).payload.text).toMatch(/^⏱ You reached the Starter plan limit/);
  expect(progressMessages(user)).toEqual([]);
  expect(await generationsOf(h, user.id)).toHaveLength(0);
});

test('a tool confirmation shows only what the tool uses (no "—" placeholders, no empty prompt)', async () => {
  const user = h.user(4_950_060, { languageCode: 'en' });
  const file = h.telegram.addFile(await syntheticImage(160, 120, 'bw'), 'photos', 'jpg');
  await h.send(user.photo(file));
  await press(h, user, /:m:colorize$/);
  const confirm = lastKeyboard(h.telegram, user.id);
  expect(confirm.payload.text).toBe('Colorize\n\nPrice: 1 tkn (balance 50)');

  // A tool that takes a prompt shows it.
  await h.send(user.photo(file));
  await press(h, user, /:m:style-transfer$/);
  await h.send(user.text('watercolor'));
  expect(lastKeyboard(h.telegram, user.id).payload.text).toBe('Style transfer\nPrompt: watercolor\n\nPrice: 1 tkn (balance 50)');

  const ru = h.user(4_950_061, { languageCode: 'ru' });
  await h.send(ru.photo(file));
  await press(h, ru, /:m:colorize$/);
  expect(lastKeyboard(h.telegram, ru.id).payload.text).toBe('Colorize\n\nЦена: 1 ток. (баланс 50)');
});

test('a new photo sent while the tool picker is open replaces the pending one', async () => {
  const user = h.user(4_950_070, { languageCode: 'en' });
  const first = h.telegram.addFile(await syntheticImage(100, 100, 'first'), 'photos', 'jpg');
  const second = h.telegram.addFile(await syntheticImage(140, 100, 'second'), 'photos', 'jpg');
  await h.send(user.photo(first));
  const oldPicker = lastKeyboard(h.telegram, user.id);
  await h.send(user.photo(second));
  const oldId = (oldPicker.result as { message_id: number }).message_id;
  expect(h.telegram.textOf(user.id, oldId)).toBe('🖼 Replaced by your new photo.');
  const picker = lastKeyboard(h.telegram, user.id);
  expect(picker.payload.text).toContain('What should I do with this photo?');
  expect(picker).not.toBe(oldPicker);

  const mark = h.telegram.calls.length;
  await press(h, user, /:m:colorize$/);
  await press(h, user, /:ok$/);
  const fetched = h.telegram.calls
    .slice(mark)
    .filter((c) => c.method === 'getFile')
    .map((c) => c.payload.file_id);
  expect(fetched).toEqual([second.file_id]);
  const [gen] = await generationsOf(h, user.id);
  expect(gen).toMatchObject({ modelSlug: 'colorize', status: 'completed' });

  // A captioned photo while the picker is open runs its tool at once.
  await h.send(user.photo(first));
  await h.send(user.photo(second, 'remove bg'));
  expect((await generationsOf(h, user.id)).map((g) => g.modelSlug)).toEqual(['colorize', 'remove-bg']);
});
