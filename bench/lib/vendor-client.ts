import { Agent, request } from 'undici';
import { providerAdapters } from '../../src/core/providers/registry';
import { nodeBodyOf } from '../../src/core/providers/transport/streamed-response';
import { createVendorFetch } from '../../src/core/providers/transport/vendor-fetch';
import type { ChatRequest, ProviderConnection } from '../../src/core/providers/types';
import { chatBody } from './http-load';
import type { Mode } from './report';
import { median, summarize } from './stats';

// What the service's vendor client costs per call, measured in the bench process against the mock, next to a
// bare undici request on its own keep-alive pool: (a) bare undici, body read whole (or streamed to its end);
// (b) the vendor client (`createVendorFetch`, fetch-compatible: a buffered response, or for SSE a stream the
// service reads through its Node stream);
// (c) the whole OpenAI adapter on top of it (request body built, answer validated, SSE parsed into events).

export interface ClientCost {
  name: string;
  /** Median over rounds of each round's p50, µs per call at concurrency 1. */
  p50Us: number;
  /** This process's CPU per call, µs (median over rounds). */
  cpuUs: number;
}

export type VendorClientFigures = Record<Mode, ClientCost[]>;

type Call = () => Promise<void>;

async function round(call: Call, n: number): Promise<{ p50Us: number; cpuUs: number }> {
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  const used = process.cpuUsage(cpu);
  return { p50Us: summarize(times).p50, cpuUs: (used.user + used.system) / n };
}

export async function measureVendorClient(mockUrl: string, opts: { calls: number; rounds: number }): Promise<VendorClientFigures> {
  const url = `${mockUrl}/v1/chat/completions`;
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 8 });
  const vendorFetch = createVendorFetch({
    connectTimeoutMs: 5000,
    headersTimeoutMs: 30_000,
    bodyIdleTimeoutMs: 30_000,
    maxResponseBytes: 1 << 24,
  });
  const conn: ProviderConnection = {
    apiKey: 'x',
    baseUrl: `${mockUrl}/v1`,
    sandbox: false,
    fetch: vendorFetch,
    timeoutMs: 30_000,
    faults: providerAdapters.openai.faults,
  };
  const chatRequest: ChatRequest = {
    upstreamModel: 'gpt-6-luna',
    messages: [{ role: 'user', content: 'Say hello in one short sentence.' }],
    maxTokens: 32,
  };
  const chat = providerAdapters.openai.chat!;
  const headers = { authorization: 'Bearer x', 'content-type': 'application/json' };
  const out = {} as VendorClientFigures;
  try {
    for (const mode of ['sync', 'stream'] as Mode[]) {
      const stream = mode === 'stream';
      const body = chatBody(stream).toString('utf8');
      const calls: [string, Call][] = [
        [
          'bare undici request',
          async () => {
            const res = await request(url, { method: 'POST', headers, body, dispatcher: agent });
            if (stream) for await (const chunk of res.body) void chunk;
            else await res.body.text();
          },
        ],
        [
          'vendor client (createVendorFetch)',
          async () => {
            const res = await vendorFetch(url, { method: 'POST', headers, body });
            // Streams are read the way the service reads them: from the Node stream under the response.
            if (stream) for await (const chunk of nodeBodyOf(res) ?? res.body!) void chunk;
            else await res.text();
          },
        ],
        [
          'OpenAI adapter over the vendor client',
          async () => {
            if (stream) for await (const ev of chat.chatStream(chatRequest, conn)) void ev;
            else await chat.chat(chatRequest, conn);
          },
        ],
      ];
      for (const [, call] of calls) for (let i = 0; i < 200; i++) await call();
      const results = calls.map(() => [] as { p50Us: number; cpuUs: number }[]);
      for (let r = 0; r < opts.rounds; r++) {
        for (let i = 0; i < calls.length; i++) {
          const k = (i + r) % calls.length;
          results[k].push(await round(calls[k][1], opts.calls));
        }
      }
      out[mode] = calls.map(([name], i) => ({
        name,
        p50Us: median(results[i].map((x) => x.p50Us)),
        cpuUs: median(results[i].map((x) => x.cpuUs)),
      }));
    }
  } finally {
    await agent.close();
  }
  return out;
}
