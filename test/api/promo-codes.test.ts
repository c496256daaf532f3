// Issue 40, promo codes: made by an operator (core here; the admin route once the admin router is in), redeemed
// once per account with POST /api/v2/user/redeem. Each redemption is one ledger row in the redemption's
// transaction; a refusal (unknown, expired, used up, already redeemed) is a clear 4xx and changes nothing; 50
// parallel redeems of a 10-use code credit exactly 10 accounts.
import { z } from 'zod';
import { RedemptionSchema } from '../../src/api/v2/redeem-routes';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import type { NewPromo } from '../../src/core/promos/promo-service';
import { ApiHarness, expectErrorShape, startApi } from './harness';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const actor = { userId: null, door: 'cli' as const, label: 'cli' };
const ds = () => api.db.dataSource;
const inAWeek = () => new Date(Date.now() + 7 * 86_400_000);
const promo = (input: Omit<NewPromo, 'maxUses' | 'expiresAt'> & Partial<NewPromo>) =>
  api.services.promos.create({ maxUses: 100, expiresAt: inAWeek(), ...input } as NewPromo, actor);

async function signedIn(plan: 'free' | 'basic' | 'pro' = 'free') {
  const account = await api.account(plan);
  return { userId: account.user.id, token: await api.accessToken(account) };
}
const redeem = (token: string, code: string) => api.request('POST', '/api/v2/user/redeem', { token, body: { code } });
const promoRows = (userId: number) =>
  ds().query<{ kind: string; bonus_delta: number; plan_delta: number }[]>(
    `SELECT kind, bonus_delta, plan_delta FROM ledger_entries WHERE user_id = $1 AND reference LIKE 'promo:%' ORDER BY id`,
    [userId],
  );
const usesOf = async (id: number) => (await ds().query<{ uses: number }[]>('SELECT uses FROM promo_codes WHERE id = $1', [id]))[0].uses;

async function ledgerMatchesBalance(userId: number): Promise<void> {
  const b = await getBalance(ds(), userId);
  const l = await ledgerTotals(ds(), userId);
  expect({ plan: l.plan, bonus: l.bonus }).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

test('a tokens code credits its bonus once per account, as one ledger grant; the code is matched whatever its case', async () => {
  const code = await promo({ code: 'spring-25', bonusTokens: 250 });
  expect(code).toMatchObject({ code: 'SPRING-25', bonusTokens: 250, planSlug: null, uses: 0, maxUses: 100 });
  const user = await signedIn();
  const before = await getBalance(ds(), user.userId);

  const res = await redeem(user.token, ' Spring-25 ');
  expect(res.status).toBe(200);
  expect(z.strictObject(RedemptionSchema.shape).safeParse(res.body).success).toBe(true);
  expect(res.body).toEqual({ code: 'SPRING-25', bonus_tokens: 250, token_balance: before.total + 250 });
  expect(await promoRows(user.userId)).toEqual([{ kind: 'grant', bonus_delta: 250, plan_delta: 0 }]);
  await ledgerMatchesBalance(user.userId);

  const again = await redeem(user.token, 'SPRING-25');
  expectErrorShape(again, 409, 'promo_already_redeemed');
  expect(await promoRows(user.userId)).toHaveLength(1);
  expect(await usesOf(code.id)).toBe(1);
  expect((await getBalance(ds(), user.userId)).total).toBe(before.total + 250);
});

test('a plan code starts the plan for its days with the allowance; the same plan running is extended', async () => {
  const code = await promo({ planSlug: 'pro', days: 14 });
  const user = await signedIn();
  const res = await redeem(user.token, code.code);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ code: code.code, plan: 'pro' });
  const until = new Date(res.body.plan_expires_at).getTime();
  expect(Math.abs(until - (Date.now() + 14 * 86_400_000))).toBeLessThan(60_000);
  const [row] = await ds().query<{ plan_slug: string; plan_paid_through: Date }[]>(
    'SELECT plan_slug, plan_paid_through FROM users WHERE id = $1',
    [user.userId],
  );
  expect(row.plan_slug).toBe('pro');
  expect(new Date(row.plan_paid_through).getTime()).toBe(until);
  const pro = await api.services.plans.get('pro');
  expect((await getBalance(ds(), user.userId)).planTokens).toBe(pro.monthlyTokens);
  expect(res.body.token_balance).toBe((await getBalance(ds(), user.userId)).total);
  await ledgerMatchesBalance(user.userId);

  const more = await promo({ planSlug: 'pro', days: 10 });
  const extended = await redeem(user.token, more.code);
  expect(extended.status).toBe(200);
  expect(new Date(extended.body.plan_expires_at).getTime()).toBe(until + 10 * 86_400_000);
  // Extending gives no second allowance.
  expect((await getBalance(ds(), user.userId)).planTokens).toBe(pro.monthlyTokens);
  await ledgerMatchesBalance(user.userId);
});

test('refusals are clear 4xx bodies and change nothing: unknown, expired, used up, malformed', async () => {
  const user = await signedIn();
  const before = await getBalance(ds(), user.userId);
  expectErrorShape(await redeem(user.token, 'NO-SUCH-CODE'), 404, 'promo_not_found');
  expectErrorShape(await redeem(user.token, 'not a code!'), 404, 'promo_not_found');
  expectErrorShape(await api.request('POST', '/api/v2/user/redeem', { token: user.token, body: {} }), 400, 'validation_error');
  expectErrorShape(
    await api.request('POST', '/api/v2/user/redeem', { token: user.token, body: { code: 'X', more: 1 } }),
    400,
    'validation_error',
  );

  const expired = await promo({ bonusTokens: 10 });
  await ds().query(`UPDATE promo_codes SET expires_at = now() - interval '1 minute' WHERE id = $1`, [expired.id]);
  const gone = await redeem(user.token, expired.code);
  expectErrorShape(gone, 410, 'promo_expired');
  expect(typeof gone.body.expires_at).toBe('string');

  const single = await promo({ bonusTokens: 10, maxUses: 1 });
  const first = await signedIn();
  expect((await redeem(first.token, single.code)).status).toBe(200);
  expectErrorShape(await redeem(user.token, single.code), 409, 'promo_exhausted');

  expect(await promoRows(user.userId)).toEqual([]);
  expect(await getBalance(ds(), user.userId)).toEqual(before);
  expect(await usesOf(single.id)).toBe(1);
  const redemptions = await ds().query('SELECT 1 FROM promo_redemptions WHERE user_id = $1', [user.userId]);
  expect(redemptions).toEqual([]);
  expectErrorShape(await api.request('POST', '/api/v2/user/redeem', { body: { code: single.code } }), 401);
});

test('50 accounts redeeming a 10-use code at once: exactly 10 are credited, the rest told it is used up', async () => {
  const code = await promo({ bonusTokens: 7, maxUses: 10 });
  const users = await Promise.all(Array.from({ length: 50 }, () => signedIn()));
  const answers = await Promise.all(users.map((u) => redeem(u.token, code.code)));
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(10);
  for (const a of answers.filter((x) => x.status !== 200)) expectErrorShape(a, 409, 'promo_exhausted');
  expect(await usesOf(code.id)).toBe(10);
  const [{ n }] = await ds().query<{ n: number }[]>(`SELECT count(*)::int AS n FROM ledger_entries WHERE reference = $1`, [
    `promo:${code.id}`,
  ]);
  expect(n).toBe(10);
});

test('one account redeeming the same code twice at once is credited once', async () => {
  const code = await promo({ bonusTokens: 5 });
  const user = await signedIn();
  const answers = await Promise.all(Array.from({ length: 5 }, () => redeem(user.token, code.code)));
  expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
  expect(await promoRows(user.userId)).toHaveLength(1);
  expect(await usesOf(code.id)).toBe(1);
});

test('an operator’s code name is unique; a generated one is drawn for them', async () => {
  await promo({ code: 'ONCE-ONLY', bonusTokens: 1 });
  await expect(promo({ code: 'once-only', bonusTokens: 1 })).rejects.toMatchObject({ code: 'promo_code_taken' });
  const generated = await promo({ bonusTokens: 1 });
  expect(generated.code).toMatch(/^[A-Z2-9]{10}$/);
});
