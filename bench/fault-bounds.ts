/**
 * How long each bounded failure takes against its configured limit: the wall-clock side of tests that only check
 * the outcome (a timeout, a refused body). Run: `npm run bench:faults`. Prints a markdown table; a row over its
 * bound exits 1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { safeFetch } from '../src/core/net/safe-fetch';
import { statusFaults } from '../src/core/providers/faults';
import { upstreamJson } from '../src/core/providers/http';
import { createVendorFetch } from '../src/core/providers/transport/vendor-fetch';

interface Case {
  name: string;
  limitMs: number;
  run(): Promise<unknown>;
}

function stallingServer(): Promise<{ origin: string; hostPort: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    switch (req.url) {
      case '/hang':
        return; // never answers
      case '/drip': {
        res.writeHead(200);
        const timer = setInterval(() => res.write('x'), 50);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case '/big-declared':
        res.writeHead(200, { 'content-length': String(2 * 1024 * 1024) });
        res.write(Buffer.alloc(1024));
        return; // the client must give up on the header alone
      case '/sse-stall':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n'); // then silence
        return;
      default:
        res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        hostPort: `127.0.0.1:${port}`,
        close: () => {
          server.closeAllConnections();
          return new Promise((r) => server.close(() => r()));
        },
      });
    }),
  );
}

async function elapsed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run().catch(() => undefined);
  return performance.now() - started;
}

async function main(): Promise<void> {
  const server = await stallingServer();
  const fetchOpts = { maxBytes: 1024 * 1024, allowPrivateHosts: [server.hostPort] };
  const vendor = createVendorFetch({ connectTimeoutMs: 1000, headersTimeoutMs: 300, bodyIdleTimeoutMs: 300, maxResponseBytes: 2000 });
  const conn = { apiKey: 'k', baseUrl: server.origin, sandbox: true, fetch: vendor, timeoutMs: 300, faults: statusFaults };
  const cases: Case[] = [
    {
      name: 'safe fetch: server never answers (timeout 300 ms)',
      limitMs: 300,
      run: () => safeFetch(`${server.origin}/hang`, { ...fetchOpts, timeoutMs: 300 }),
    },
    {
      name: 'safe fetch: body trickles past the budget (timeout 400 ms)',
      limitMs: 400,
      run: () => safeFetch(`${server.origin}/drip`, { ...fetchOpts, timeoutMs: 400 }),
    },
    {
      name: 'safe fetch: declared length over the cap (no wait for the body)',
      limitMs: 0,
      run: () => safeFetch(`${server.origin}/big-declared`, { ...fetchOpts, timeoutMs: 5000 }),
    },
    {
      name: 'vendor client: no response head (head timeout 300 ms)',
      limitMs: 300,
      run: () => upstreamJson('openai', conn, { path: '/hang' }),
    },
    {
      name: 'vendor client: stream goes silent (idle timeout 300 ms)',
      limitMs: 300,
      run: async () => {
        const reader = (await vendor(`${server.origin}/sse-stall`)).body!.getReader();
        await reader.read();
        await reader.read();
      },
    },
  ];
  // The bound: the limit plus a margin for a loaded machine; the tests check only the outcome.
  const marginMs = 1500;
  const rows: string[] = [];
  let over = 0;
  for (const c of cases) {
    const ms = await elapsed(() => c.run());
    const ok = ms <= c.limitMs + marginMs;
    if (!ok) over += 1;
    rows.push(`| ${c.name} | ${c.limitMs} | ${ms.toFixed(0)} | ${ok ? 'ok' : 'OVER'} |`);
  }
  await server.close();
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(`Bounded failures (load average ${load}; bound = limit + ${marginMs} ms)\n`);
  console.log('| case | limit ms | took ms | within bound |\n|---|---|---|---|');
  console.log(rows.join('\n'));
  process.exit(over > 0 ? 1 : 0);
}

void main();
