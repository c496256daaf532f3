import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { WEBHOOK_DELIVERY } from '../../src/jobs/webhook-jobs';
import { waitUntil } from '../support/wait';

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** Status (and headers) to answer the n-th request (0-based) with; default 200. */
  respond: (index: number, req: ReceivedWebhook) => number | { status: number; headers: Record<string, string> } | 'hang';
  /** Resolves once `count` requests matched `filter`. */
  waitFor(count: number, filter?: (r: ReceivedWebhook) => boolean, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A real HTTP endpoint on loopback that records every webhook it gets. */
export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const receiver: Receiver = {
    url: '',
    received,
    respond: () => 200,
    async waitFor(count, filter = () => true, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const matched = received.filter(filter);
        if (matched.length >= count) return matched;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`expected ${count} webhooks, got ${received.filter(filter).length}`);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const entry: ReceivedWebhook = { headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const index = received.length;
      received.push(entry);
      const answer = receiver.respond(index, entry);
      if (answer === 'hang') return;
      const { status, headers: extra } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      res.writeHead(status, { 'content-type': 'text/plain', ...extra });
      res.end(status >= 200 && status < 300 ? 'ok' : `nope ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}

export { eventually } from '../support/wait';

/**
 * Resolves once the endpoint has no delivery still pending and no delivery job is queued or running: from then on
 * nothing more is sent to it, so a test can check what did not arrive without sleeping.
 */
export async function deliveriesSettled(ds: DataSource, endpointId: number): Promise<void> {
  await waitUntil(
    async () => {
      const [{ pending }] = await ds.query(
        `SELECT count(*)::int AS pending FROM webhook_deliveries WHERE endpoint_id = $1 AND state = 'pending'`,
        [endpointId],
      );
      const [{ jobs }] = await ds.query(
        `SELECT count(*)::int AS jobs FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active')`,
        [WEBHOOK_DELIVERY],
      );
      return pending === 0 && jobs === 0;
    },
    20_000,
    `deliveries of endpoint ${endpointId} settled`,
  );
}
