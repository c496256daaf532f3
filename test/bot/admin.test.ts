import { adminActors } from '../../src/core/admin/audit-log';
import { getBalance } from '../../src/core/billing/ledger';
import { ProviderError } from '../../src/core/providers/types';
import { GenerationEntity } from '../../src/db/entities';
import { BotHarness, startBotHarness, accountOf } from './harness';

const ADMIN = 4_700_001;
const ADMIN_GROUP = -1_004_700_002;
let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness({
    adminIds: [ADMIN, ADMIN_GROUP],
    bot: { settings: { failureBurstThreshold: 3, failureBurstWindowMs: 60_000 } },
  });
});
afterAll(() => h.close());

test('a non-admin cannot use /admin: refused, and nothing changes', async () => {
  const mallory = h.user(4_700_010, { username: 'mallory', languageCode: 'en' });
  await h.send(mallory.text('/start'));
  const before = h.telegram.calls.length;
  await h.send(mallory.text(`/admin grant tg:${mallory.id} 1000`));
  await h.send(mallory.text(`/admin plan tg:${mallory.id} elite`));
  await h.send(mallory.text('/admin stats'));
  const replies = h.telegram.calls.slice(before).filter((c) => c.method === 'sendMessage');
  expect(replies.map((c) => c.payload.text)).toEqual(Array(3).fill('This command is for administrators only.'));
  expect(replies.every((c) => Number(c.payload.chat_id) === mallory.id)).toBe(true);
  const account = await accountOf(h, mallory.id);
  expect(account.planSlug).toBe('free');
  expect((await getBalance(h.engine.db.dataSource, account.id)).total).toBe(50);
});

test('an admin grants bonus tokens (once per update), changes a plan, looks up a user and reads the stats', async () => {
  const admin = h.user(ADMIN, { languageCode: 'en' });
  const customer = h.user(4_700_020, { username: 'customer_1' });
  await h.send(customer.text('/start'));
  const account = await accountOf(h, customer.id);

  const grant = admin.text('/admin grant @customer_1 120');
  await h.send(grant);
  expect(h.telegram.sentTexts(ADMIN).pop()).toBe(`✅ Granted 120 bonus tokens to #${account.id} Alice. Balance: 170.`);
  // Telegram may deliver an update twice: the grant is not repeated.
  await h.send(grant);
  expect((await getBalance(h.engine.db.dataSource, account.id)).total).toBe(170);

  await h.send(admin.text(`/admin plan ${account.id} pro`));
  expect(h.telegram.sentTexts(ADMIN).pop()).toContain('is now on the Pro plan');
  const upgraded = await accountOf(h, customer.id);
  expect(upgraded.planSlug).toBe('pro');
  const plan = await h.engine.services.plans.get('pro');
  expect((await getBalance(h.engine.db.dataSource, account.id)).planTokens).toBe(plan.monthlyTokens);

  await h.send(admin.text(`/admin user tg:${customer.id}`));
  expect(h.telegram.sentTexts(ADMIN).pop()).toContain('@customer_1');
  await h.send(admin.text('/admin grant @nobody_here 5'));
  expect(h.telegram.sentTexts(ADMIN).pop()).toBe('No user @nobody_here.');
  await h.send(admin.text('/admin'));
  expect(h.telegram.sentTexts(ADMIN).pop()).toMatch(/^📈 Service\nUsers: \d+/);

  // Each change is in the audit log once, as the bot admin did it (the repeated update wrote no second grant).
  const adminAccount = await accountOf(h, ADMIN);
  const audit = await h.engine.db.dataSource.query(
    `SELECT actor_user_id, actor_label, door, action, before, after FROM admin_audit_log WHERE target_type = 'user' AND target_id = $1 ORDER BY id`,
    [String(account.id)],
  );
  expect(audit).toEqual([
    {
      actor_user_id: adminAccount.id,
      actor_label: `bot:${ADMIN}`,
      door: 'bot',
      action: 'user.grant',
      before: { token_balance: 50, plan_tokens: 0, bonus_tokens: 50 },
      after: { token_balance: 170, plan_tokens: 0, bonus_tokens: 170, granted: 120, reason: 'granted in the bot' },
    },
    expect.objectContaining({
      actor_label: `bot:${ADMIN}`,
      action: 'user.plan',
      before: expect.objectContaining({ plan: 'free' }),
      after: expect.objectContaining({ plan: 'pro', plan_paid_through: null }),
    }),
  ]);
  const [ledger] = await h.engine.db.dataSource.query(
    `SELECT note FROM ledger_entries WHERE user_id = $1 AND kind = 'grant' AND reference LIKE 'admin:%'`,
    [account.id],
  );
  expect(ledger.note).toBe(`bot:${ADMIN}: granted in the bot`);
});

test('an admin’s grant over the bound, or with a reason, at the bot: refused without a trace, or the reason kept', async () => {
  const admin = h.user(ADMIN, { languageCode: 'en' });
  const customer = h.user(4_700_040, { username: 'customer_2' });
  await h.send(customer.text('/start'));
  const account = await accountOf(h, customer.id);
  const auditRows = () =>
    h.engine.db.dataSource.query(`SELECT action, after FROM admin_audit_log WHERE target_id = $1 ORDER BY id`, [String(account.id)]);

  await h.send(admin.text('/admin grant @customer_2 1000001'));
  expect(h.telegram.sentTexts(ADMIN).pop()).toContain('Admin commands:');
  expect((await getBalance(h.engine.db.dataSource, account.id)).total).toBe(50);
  expect(await auditRows()).toEqual([]);

  await h.send(admin.text('/admin grant @customer_2 1000000 contest winner'));
  expect((await getBalance(h.engine.db.dataSource, account.id)).total).toBe(1_000_050);
  expect(await auditRows()).toEqual([
    { action: 'user.grant', after: expect.objectContaining({ granted: 1_000_000, reason: 'contest winner' }) },
  ]);
});

test('admins are told about new users, provider outages and recoveries, and failure bursts', async () => {
  const newcomer = h.user(4_700_030, { firstName: 'Nina', username: 'nina' });
  await h.send(newcomer.text('/start'));
  const toAdmins = (text: string) =>
    [ADMIN, ADMIN_GROUP].every((chat) =>
      h.telegram.callsOf('sendMessage').some((c) => Number(c.payload.chat_id) === chat && String(c.payload.text).includes(text)),
    );
  expect(toAdmins('New user')).toBe(true);
  expect(toAdmins('@nina')).toBe(true);

  const gate = h.engine.services.gate;
  const xai = { provider: 'xai', index: 0 } as const;
  for (let i = 0; i < 5; i++) gate.observe(xai, new ProviderError('overloaded', 'upstream 503', 'xai'));
  gate.observe(xai, null);
  await h.app.deps.tasks.drain();
  expect(toAdmins('Provider xai is failing')).toBe(true);
  expect(toAdmins('Provider xai recovered')).toBe(true);

  const failed = { status: 'failed', modelSlug: 'flux-dev', errorKind: 'timeout' } as GenerationEntity;
  for (let i = 0; i < 3; i++) await h.engine.services.notifier.generationFinished(failed);
  await h.app.deps.tasks.drain();
  expect(toAdmins('3 generations failed in the last 1 min')).toBe(true);
});

test('an account blocked in the console is refused by the bot on its very next message, and served again once unblocked', async () => {
  const customer = h.user(4_700_050, { username: 'customer_3', languageCode: 'en' });
  await h.send(customer.text('/start'));
  const account = await accountOf(h, customer.id);
  const desk = h.engine.services.adminUsers;

  await desk.setBlocked(account.id, true, 'spam', adminActors.cli());
  await h.send(customer.text('/balance'));
  expect(h.telegram.sentTexts(customer.id).pop()).toBe('This account is blocked. Contact support if you think this is a mistake.');

  await desk.setBlocked(account.id, false, undefined, adminActors.cli());
  await h.send(customer.text('/balance'));
  expect(h.telegram.sentTexts(customer.id).pop()).not.toContain('blocked');
});
