import { isUniqueViolation } from '../../db/transaction';
import { InsufficientTokensError } from './errors';
import { Queryable } from './queryable';

// Every function here is ONE SQL statement: the balance change and its ledger row commit together or not
// at all, and the balance row is locked for the statement's duration, so concurrent callers serialise.

export interface Balance {
  planTokens: number;
  bonusTokens: number;
  total: number;
  usedThisPeriod: number;
}

export interface Reservation {
  reference: string;
  planAmount: number;
  bonusAmount: number;
}

export interface Settlement {
  charged: number;
  refundedPlan: number;
  refundedBonus: number;
}

interface BalanceRow {
  plan_tokens: number;
  bonus_tokens: number;
  tokens_used_this_period: number;
}

const toBalance = (r: BalanceRow): Balance => ({
  planTokens: r.plan_tokens,
  bonusTokens: r.bonus_tokens,
  total: r.plan_tokens + r.bonus_tokens,
  usedThisPeriod: r.tokens_used_this_period,
});

export async function getBalance(db: Queryable, userId: number): Promise<Balance> {
  const rows = await db.query<BalanceRow[]>('SELECT plan_tokens, bonus_tokens, tokens_used_this_period FROM balances WHERE user_id = $1', [
    userId,
  ]);
  return rows[0] ? toBalance(rows[0]) : { planTokens: 0, bonusTokens: 0, total: 0, usedThisPeriod: 0 };
}

/** Creates the empty balance row of a new user (idempotent). */
export async function openBalance(db: Queryable, userId: number): Promise<void> {
  await db.query('INSERT INTO balances (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING', [userId]);
}

async function findReservation(db: Queryable, reference: string): Promise<Reservation | undefined> {
  const rows = await db.query<{ plan_amount: number; bonus_amount: number }[]>(
    'SELECT plan_amount, bonus_amount FROM token_reservations WHERE reference = $1',
    [reference],
  );
  return rows[0] && { reference, planAmount: rows[0].plan_amount, bonusAmount: rows[0].bonus_amount };
}

/**
 * CTEs `cur`, `kcur`, `klive`, `kfit`, `take`, `upd`, `kupd`, `res`, `led` that hold `amountParam` tokens of `userParam`
 * under the reference the SQL expression `refExpr` yields: plan tokens first, then bonus tokens; nothing happens
 * when the balance is short, the API key `keyParam` (an SQL integer, NULL for none) would pass its token budget,
 * or the reference exists. The key's row is locked after the balance row (every writer of a key's counter holds
 * its owner's balance lock first), so parallel holds on one key see each other's spending: none overshoots.
 * `upd` returns (user_id, p, b) when tokens were taken; `kfit.ok` is false when the key's budget refused.
 * Composable into larger statements.
 */
export function reserveCtes(userParam: string, amountParam: string, refExpr: string, keyParam = 'NULL::int'): string {
  return `cur AS (
      SELECT user_id, plan_tokens, bonus_tokens FROM balances WHERE user_id = ${userParam} FOR UPDATE
    ), kcur AS (
      SELECT k.id, k.token_budget, api_key_period_start(k.budget_period) AS period_start,
             CASE WHEN k.spent_period_start = api_key_period_start(k.budget_period) THEN k.spent ELSE 0 END AS spent
        FROM api_keys k, cur
       WHERE k.id = ${keyParam} AND k.user_id = cur.user_id AND (k.expires_at IS NULL OR k.expires_at > now())
         FOR UPDATE OF k
    ), klive AS (
      SELECT ${keyParam} IS NULL OR EXISTS (SELECT 1 FROM kcur) AS ok
    ), kfit AS (
      SELECT (SELECT ok FROM klive) AND NOT EXISTS (
        SELECT 1 FROM kcur WHERE token_budget IS NOT NULL AND spent + ${amountParam} > token_budget
      ) AS ok
    ), take AS (
      SELECT user_id, LEAST(plan_tokens, ${amountParam}) AS p, ${amountParam} - LEAST(plan_tokens, ${amountParam}) AS b
        FROM cur WHERE plan_tokens + bonus_tokens >= ${amountParam} AND (SELECT ok FROM kfit)
         AND NOT EXISTS (SELECT 1 FROM token_reservations WHERE reference = ${refExpr})
    ), upd AS (
      UPDATE balances bal
         SET plan_tokens = bal.plan_tokens - take.p, bonus_tokens = bal.bonus_tokens - take.b, updated_at = now()
        FROM take
       WHERE bal.user_id = take.user_id AND bal.plan_tokens >= take.p AND bal.bonus_tokens >= take.b
       RETURNING bal.user_id, take.p, take.b
    ), kupd AS (
      UPDATE api_keys k SET spent = kcur.spent + upd.p + upd.b, spent_period_start = kcur.period_start
        FROM kcur, upd WHERE k.id = kcur.id
    ), res AS (
      INSERT INTO token_reservations (reference, user_id, plan_amount, bonus_amount, api_key_id)
      SELECT ${refExpr}, user_id, p, b, (SELECT id FROM kcur) FROM upd
    ), led AS (
      INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta)
      SELECT user_id, 'reserve', ${refExpr}, -p, -b FROM upd
    )`;
}

/**
 * The batch form of `reserveCtes`, for a statement that starts `WITH RECURSIVE`. `items` names a relation with
 * columns (ord, user_id, amount, n): `n` numbers each user's items 1, 2, 3… in arrival order. The balance rows are
 * locked in user order (concurrent batches cannot deadlock), then each user's items are walked in order and
 * admitted while the balance still covers them, plan tokens first, exactly as if they had come one by one.
 * CTEs: `cur` (locked balances), `walk` (per item: `avail` before it, `p`/`b` taken or NULL when refused), `upd`,
 * `ok` (admitted items: ord, user_id, p, b, key_id and `extraCols`), `kupd`, `res` and `led`. `refExpr` is the
 * reference of an `ok` row. `items` may have a `key_id` column (the API key of the item; NULL for none): the
 * held tokens are added to the key's counter. Its budget is NOT checked here: items of a key with a budget go
 * through `reserveCtes` one by one (see createPendingGenerations).
 */
export function reserveBatchCtes(items: string, extraCols: string, refExpr: string, keyCol = 'NULL::int'): string {
  const fits = 'w.plan_left + w.bonus_left >= i.amount';
  const fromPlan = 'LEAST(w.plan_left, i.amount)';
  return `cur AS (
      SELECT user_id, plan_tokens, bonus_tokens FROM balances
       WHERE user_id IN (SELECT user_id FROM ${items}) ORDER BY user_id FOR UPDATE
    ), walk AS (
      SELECT user_id, 0::bigint AS n, plan_tokens AS plan_left, bonus_tokens AS bonus_left,
             NULL::bigint AS ord, NULL::int AS avail, NULL::int AS p, NULL::int AS b
        FROM cur
      UNION ALL
      SELECT w.user_id, i.n,
             CASE WHEN ${fits} THEN w.plan_left - ${fromPlan} ELSE w.plan_left END,
             CASE WHEN ${fits} THEN w.bonus_left - (i.amount - ${fromPlan}) ELSE w.bonus_left END,
             i.ord, w.plan_left + w.bonus_left,
             CASE WHEN ${fits} THEN ${fromPlan} END,
             CASE WHEN ${fits} THEN i.amount - ${fromPlan} END
        FROM walk w JOIN ${items} i ON i.user_id = w.user_id AND i.n = w.n + 1
    ), tot AS (
      SELECT user_id, SUM(p)::int AS p, SUM(b)::int AS b FROM walk WHERE p IS NOT NULL GROUP BY user_id
    ), upd AS (
      UPDATE balances bal
         SET plan_tokens = bal.plan_tokens - tot.p, bonus_tokens = bal.bonus_tokens - tot.b, updated_at = now()
        FROM tot
       WHERE bal.user_id = tot.user_id AND bal.plan_tokens >= tot.p AND bal.bonus_tokens >= tot.b
       RETURNING bal.user_id
    ), ok AS (
      SELECT w.ord, w.user_id, w.p, w.b, ${keyCol} AS key_id, ${extraCols}
        FROM walk w JOIN upd ON upd.user_id = w.user_id JOIN ${items} i ON i.ord = w.ord
       WHERE w.p IS NOT NULL
    ), kupd AS (
      UPDATE api_keys k
         SET spent = CASE WHEN k.spent_period_start = api_key_period_start(k.budget_period) THEN k.spent ELSE 0 END + s.amount,
             spent_period_start = api_key_period_start(k.budget_period)
        FROM (SELECT key_id, SUM(p + b)::int AS amount FROM ok WHERE key_id IS NOT NULL GROUP BY key_id) s
       WHERE k.id = s.key_id
    ), res AS (
      INSERT INTO token_reservations (reference, user_id, plan_amount, bonus_amount, api_key_id)
      SELECT ${refExpr}, user_id, p, b, key_id FROM ok
    ), led AS (
      INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta)
      SELECT user_id, 'reserve', ${refExpr}, -p, -b FROM ok
    )`;
}

/**
 * Holds `amount` tokens for `reference`, plan tokens first, then bonus tokens. Throws
 * InsufficientTokensError when the balance cannot cover it. Repeating a reference returns the first hold.
 */
export async function reserve(db: Queryable, userId: number, reference: string, amount: number): Promise<Reservation> {
  assertTokenAmount(amount);
  let rows: { available: number | null; plan_taken: number | null; bonus_taken: number | null }[];
  try {
    rows = await db.query(
      `WITH ${reserveCtes('$1::int', '$2::int', '$3::text')}
       SELECT (SELECT plan_tokens + bonus_tokens FROM cur) AS available,
              (SELECT p FROM upd) AS plan_taken, (SELECT b FROM upd) AS bonus_taken`,
      [userId, amount, reference],
    );
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    rows = [{ available: null, plan_taken: null, bonus_taken: null }];
  }
  const row = rows[0];
  if (row.plan_taken !== null && row.bonus_taken !== null) {
    return { reference, planAmount: row.plan_taken, bonusAmount: row.bonus_taken };
  }
  const existing = await findReservation(db, reference);
  if (existing) return existing;
  throw new InsufficientTokensError(amount, row.available ?? 0);
}

export function assertTokenAmount(amount: number): void {
  if (!Number.isInteger(amount) || amount < 0) throw new RangeError(`invalid token amount ${amount}`);
}

/**
 * CTEs `r`, `refund`, `bal_upd`, `bal_led` that settle the reservation `refExpr` (status 'settled' charges up to
 * `chargeExpr`, 'released' charges 0) and give the rest back, bonus tokens first (they were taken last).
 * `guard`, when given, is an SQL condition the reservation update also needs (e.g. a generation transition).
 * `bal_upd` returns the user's new total balance. `key_back` gives what was not charged back to the API key's
 * counter, unless the key's budget period turned since the hold.
 */
export function settleCtes(refExpr: string, chargeExpr: string, statusExpr: string, guard = 'true'): string {
  return `r AS (
      UPDATE token_reservations
         SET status = ${statusExpr}, charged = LEAST(${chargeExpr}, plan_amount + bonus_amount), updated_at = now()
       WHERE reference = ${refExpr} AND status = 'reserved' AND ${guard}
       RETURNING user_id, plan_amount, bonus_amount, charged, api_key_id, created_at
    ), refund AS (
      SELECT user_id, charged, api_key_id, created_at,
             LEAST(bonus_amount, plan_amount + bonus_amount - charged) AS rb,
             (plan_amount + bonus_amount - charged) - LEAST(bonus_amount, plan_amount + bonus_amount - charged) AS rp
        FROM r
    ), bal_upd AS (
      UPDATE balances bal
         SET plan_tokens = bal.plan_tokens + refund.rp, bonus_tokens = bal.bonus_tokens + refund.rb,
             tokens_used_this_period = bal.tokens_used_this_period + refund.charged, updated_at = now()
        FROM refund WHERE bal.user_id = refund.user_id
       RETURNING bal.user_id, bal.plan_tokens + bal.bonus_tokens AS balance
    ), bal_led AS (
      INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta)
      SELECT user_id, CASE WHEN ${statusExpr} = 'settled' THEN 'settle' ELSE 'release' END, ${refExpr}, rp, rb FROM refund
    ), key_back AS (
      UPDATE api_keys k SET spent = GREATEST(k.spent - (refund.rp + refund.rb), 0)
        FROM refund JOIN bal_upd ON bal_upd.user_id = refund.user_id
       WHERE k.id = refund.api_key_id AND k.spent_period_start <= refund.created_at
    )`;
}

/**
 * The batch form of `settleCtes`. `fin` names a relation with columns (ord, ref, charge, status): reservation
 * `ref` is settled ('settled' charges up to `charge`) or released ('released'), each at most once. The balances
 * are locked in user order after the reservations, and each user's balance moves once for all of its items.
 * CTEs: `r`, `refund`, `lk`, `per_user`, `bal_upd`, `bal_led`, `key_back` (unused tokens back to the API keys'
 * counters) and `settled` (per item that moved: ord, charged, rp, rb, and `balance`, the user's total right after
 * that item as if the items had come one by one).
 */
export function settleBatchCtes(fin: string): string {
  return `r AS (
      UPDATE token_reservations tr
         SET status = f.status, charged = LEAST(f.charge, tr.plan_amount + tr.bonus_amount), updated_at = now()
        FROM ${fin} f
       WHERE tr.reference = f.ref AND tr.status = 'reserved'
       RETURNING f.ord, f.status, tr.reference, tr.user_id, tr.plan_amount, tr.bonus_amount, tr.charged, tr.api_key_id,
                 tr.created_at
    ), refund AS (
      SELECT ord, status, reference, user_id, charged, api_key_id, created_at,
             LEAST(bonus_amount, plan_amount + bonus_amount - charged) AS rb,
             (plan_amount + bonus_amount - charged) - LEAST(bonus_amount, plan_amount + bonus_amount - charged) AS rp
        FROM r
    ), lk AS (
      SELECT user_id FROM balances WHERE user_id IN (SELECT user_id FROM refund) ORDER BY user_id FOR UPDATE
    ), per_user AS (
      SELECT user_id, SUM(rp)::int AS rp, SUM(rb)::int AS rb, SUM(charged)::int AS charged FROM refund GROUP BY user_id
    ), bal_upd AS (
      UPDATE balances bal
         SET plan_tokens = bal.plan_tokens + pu.rp, bonus_tokens = bal.bonus_tokens + pu.rb,
             tokens_used_this_period = bal.tokens_used_this_period + pu.charged, updated_at = now()
        FROM per_user pu JOIN lk ON lk.user_id = pu.user_id
       WHERE bal.user_id = pu.user_id
       RETURNING bal.user_id, bal.plan_tokens + bal.bonus_tokens AS balance
    ), bal_led AS (
      INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta)
      SELECT user_id, CASE WHEN status = 'settled' THEN 'settle' ELSE 'release' END, reference, rp, rb FROM refund
    ), key_back AS (
      UPDATE api_keys k SET spent = GREATEST(k.spent - kb.back, 0)
        FROM (SELECT rf.api_key_id, SUM(rf.rp + rf.rb)::int AS back FROM refund rf
                JOIN bal_upd bu ON bu.user_id = rf.user_id
               WHERE rf.api_key_id IS NOT NULL AND rf.created_at >= (SELECT spent_period_start FROM api_keys WHERE id = rf.api_key_id)
               GROUP BY rf.api_key_id) kb
       WHERE k.id = kb.api_key_id
    ), settled AS MATERIALIZED (
      SELECT rf.ord, rf.charged, rf.rp, rf.rb,
             bu.balance - COALESCE(SUM(rf.rp + rf.rb) OVER (PARTITION BY rf.user_id ORDER BY rf.ord
                                                           ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), 0)::int AS balance
        FROM refund rf LEFT JOIN bal_upd bu ON bu.user_id = rf.user_id
    )`;
}

async function finish(db: Queryable, reference: string, charge: number, status: 'settled' | 'released'): Promise<Settlement | null> {
  const rows = await db.query<{ charged: number; rp: number; rb: number }[]>(
    `WITH ${settleCtes('$1::text', '$2::int', '$3::text')} SELECT charged, rp, rb FROM refund`,
    [reference, charge, status],
  );
  const row = rows[0];
  return row ? { charged: row.charged, refundedPlan: row.rp, refundedBonus: row.rb } : null;
}

/**
 * Charges the actual cost (never more than was reserved) and gives back the rest. Single-shot: only the first
 * call for a reference does anything; later ones (retries, other workers) return null.
 */
export async function settle(db: Queryable, reference: string, actualCost: number): Promise<Settlement | null> {
  assertTokenAmount(actualCost);
  return finish(db, reference, actualCost, 'settled');
}

/** Gives back the whole reservation. Single-shot, like settle. */
export async function release(db: Queryable, reference: string): Promise<Settlement | null> {
  return finish(db, reference, 0, 'released');
}

/** Adds bonus tokens (never expire). Returns false when this reference was already granted. */
export async function grantBonus(db: Queryable, userId: number, amount: number, reference: string, note?: string): Promise<boolean> {
  if (!Number.isInteger(amount) || amount <= 0) throw new RangeError(`invalid token amount ${amount}`);
  try {
    const rows = await db.query<unknown[]>(
      `WITH upd AS (
         UPDATE balances SET bonus_tokens = bonus_tokens + $2, updated_at = now() WHERE user_id = $1 RETURNING user_id
       )
       INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta, note)
       SELECT user_id, 'grant', $3, 0, $2, $4 FROM upd RETURNING id`,
      [userId, amount, reference, note ?? null],
    );
    if (rows.length === 0) throw new Error(`user ${userId} has no balance`);
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

/**
 * Sets plan tokens to `tokens` (the plan allowance at a billing-cycle boundary: not accumulated), resetting the
 * period usage for a refill. Returns false when this reference was already applied.
 */
export async function setPlanTokens(
  db: Queryable,
  userId: number,
  tokens: number,
  kind: 'refill' | 'adjust',
  reference: string,
  note?: string,
): Promise<boolean> {
  if (!Number.isInteger(tokens) || tokens < 0) throw new RangeError(`invalid token amount ${tokens}`);
  try {
    const rows = await db.query<unknown[]>(
      `WITH cur AS (
         SELECT user_id, plan_tokens FROM balances WHERE user_id = $1 FOR UPDATE
       ), upd AS (
         UPDATE balances bal
            SET plan_tokens = $2,
                tokens_used_this_period = CASE WHEN $3 = 'refill' THEN 0 ELSE bal.tokens_used_this_period END,
                updated_at = now()
           FROM cur WHERE bal.user_id = cur.user_id
          RETURNING bal.user_id
       )
       INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta, note)
       SELECT cur.user_id, $3, $4, $2 - cur.plan_tokens, 0, $5 FROM cur JOIN upd ON upd.user_id = cur.user_id
       RETURNING id`,
      [userId, tokens, kind, reference, note ?? null],
    );
    if (rows.length === 0) throw new Error(`user ${userId} has no balance`);
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

/** Sum of the ledger for one user; equals the stored balance at all times. */
export async function ledgerTotals(db: Queryable, userId: number): Promise<{ plan: number; bonus: number }> {
  const rows = await db.query<{ plan: string; bonus: string }[]>(
    'SELECT COALESCE(SUM(plan_delta), 0) AS plan, COALESCE(SUM(bonus_delta), 0) AS bonus FROM ledger_entries WHERE user_id = $1',
    [userId],
  );
  return { plan: Number(rows[0].plan), bonus: Number(rows[0].bonus) };
}
