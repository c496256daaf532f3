import type { Delivered } from './mixed-load';
import type { BenchDatabase } from './service-fixture';

/** What the database says about the answers the clients received, read after the service drained. */
export interface DeliveryAudit {
  delivered: number;
  /** Delivered answers whose generation is billed: completed, tokens spent, one settle row in the ledger. */
  billed: number;
  unbilled: Delivered[];
  /** Prompt tags (one request, or one Idempotency-Key with its retries) billed more than once. */
  chargedTwice: string[];
  /** Sum over accounts of |sum of ledger rows - stored balance|. */
  drift: number;
  accounts: number;
  openHolds: number;
  pendingGenerations: number;
}

interface Row {
  id: number;
  tag: string;
  status: string;
  tokens_spent: number;
  settles: string;
}

export async function auditDeliveries(db: BenchDatabase, delivered: Delivered[]): Promise<DeliveryAudit> {
  const rows = await db.query<Row>(
    `SELECT g.id, substring(g.prompt from '\\[pgr:([0-9a-f]+)\\]') AS tag, g.status, g.tokens_spent,
            (SELECT count(*) FROM ledger_entries l WHERE l.user_id = g.user_id AND l.reference = 'gen:' || g.id AND l.kind = 'settle') AS settles
       FROM generations g WHERE g.prompt LIKE '%[pgr:%'`,
  );
  const isBilled = (r: Row) => r.status === 'completed' && r.tokens_spent > 0 && Number(r.settles) === 1;
  const byId = new Map(rows.map((r) => [r.id, r]));
  const byTag = new Map<string, Row[]>();
  for (const r of rows) byTag.set(r.tag, [...(byTag.get(r.tag) ?? []), r]);
  const billedFor = (d: Delivered) => {
    const own = d.generationId !== undefined ? [byId.get(d.generationId)] : (byTag.get(d.tag) ?? []);
    return own.some((r) => r !== undefined && r.tag === d.tag && isBilled(r));
  };
  const unbilled = delivered.filter((d) => !billedFor(d));
  const chargedTwice = [...byTag.entries()]
    .filter(([, rs]) => rs.filter((r) => Number(r.settles) > 0).length > 1 || rs.some((r) => Number(r.settles) > 1))
    .map(([tag]) => tag);
  const [drift] = await db.query<{ accounts: string; drift: string }>(
    `SELECT count(*) AS accounts, coalesce(sum(abs(coalesce(l.total, 0) - (b.plan_tokens + b.bonus_tokens))), 0) AS drift
       FROM balances b
       LEFT JOIN (SELECT user_id, sum(plan_delta + bonus_delta) AS total FROM ledger_entries GROUP BY user_id) l USING (user_id)`,
  );
  const [holds] = await db.query<{ n: string }>(`SELECT count(*) AS n FROM token_reservations WHERE status = 'reserved'`);
  const [pending] = await db.query<{ n: string }>(`SELECT count(*) AS n FROM generations WHERE status IN ('pending', 'processing')`);
  return {
    delivered: delivered.length,
    billed: delivered.length - unbilled.length,
    unbilled,
    chargedTwice,
    drift: Number(drift.drift),
    accounts: Number(drift.accounts),
    openHolds: Number(holds.n),
    pendingGenerations: Number(pending.n),
  };
}
