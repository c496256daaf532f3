import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { createVendorFetch } from '../../src/core/providers/transport/vendor-fetch';
import type { ProviderAdapter } from '../../src/core/providers/adapter';
import { ProviderConnection, ProviderError } from '../../src/core/providers/types';
import { SandboxServer, startSandbox } from '../../src/sandbox/server';
import type { SandboxHandler, SandboxRequest } from '../../src/sandbox/types';

// Scaffolding shared by the provider adapter tests: one vendor fake on a loopback sandbox, a fetch stub that
// replays recorded vendor payloads, and a fetch wrapper that keeps what an adapter sent.

type VendorAdapter = Pick<ProviderAdapter, 'name' | 'defaultBaseUrl' | 'faults'>;

export interface VendorSandbox {
  /** Requests the fake received during the current test, in order. */
  readonly received: SandboxRequest[];
  /** Per request: whether its response closed before the fake had written everything (the client went away). */
  readonly cutShort: boolean[];
  /** Resolves once the response to request `i` has closed, with whether it was cut short. */
  whenClosed(i: number): Promise<boolean>;
  /** The JSON body of the last request received. */
  lastBody(): Record<string, unknown>;
  /** `http://127.0.0.1:<port>/<vendor>` */
  mountUrl(): string;
  /** A connection to the fake: mount URL + the path of the adapter's defaultBaseUrl, key `test-key`. */
  conn(overrides?: Partial<ProviderConnection>): ProviderConnection;
}

/**
 * Runs `handler` as the adapter's vendor for the enclosing test file (started before all tests, closed after)
 * and records what it receives; the records start empty for each test.
 */
/** The production vendor client, with the test connection's timeouts. */
export const testVendorFetch = createVendorFetch({
  connectTimeoutMs: 2000,
  headersTimeoutMs: 5000,
  bodyIdleTimeoutMs: 5000,
  maxResponseBytes: 64 * 1024 * 1024,
});

export function useVendorSandbox(adapter: VendorAdapter, handler: SandboxHandler): VendorSandbox {
  let sandbox: SandboxServer | undefined;
  const received: SandboxRequest[] = [];
  const cutShort: boolean[] = [];
  const closed: Promise<boolean>[] = [];
  let generation = 0;
  const started = () => {
    if (!sandbox) throw new Error('the vendor sandbox starts in beforeAll');
    return sandbox;
  };

  beforeAll(async () => {
    sandbox = await startSandbox({
      [adapter.name]: (req: SandboxRequest, res: ServerResponse) => {
        const i = received.push(req) - 1;
        // A request of an earlier test that closes late must not write into this test's records.
        const test = generation;
        closed[i] = new Promise((resolve) =>
          res.once('close', () => {
            const cut = !res.writableFinished;
            if (test === generation) cutShort[i] = cut;
            resolve(cut);
          }),
        );
        return handler(req, res);
      },
    });
  });
  afterAll(() => sandbox?.close());
  beforeEach(() => {
    generation += 1;
    received.length = 0;
    cutShort.length = 0;
    closed.length = 0;
  });

  const mountUrl = () => started().mountUrl(adapter.name);
  return {
    received,
    cutShort,
    whenClosed: (i) => closed[i] ?? Promise.reject(new Error(`the fake received no request #${i}`)),
    lastBody: () => bodyOf(received[received.length - 1]),
    mountUrl,
    conn: (overrides = {}) => ({
      apiKey: 'test-key',
      baseUrl: mountUrl() + new URL(adapter.defaultBaseUrl).pathname,
      sandbox: true,
      fetch: testVendorFetch,
      timeoutMs: 5000,
      faults: adapter.faults,
      ...overrides,
    }),
  };
}

export const bodyOf = (req: SandboxRequest) => JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;

// ---------- replaying recorded payloads ----------

/** Reads `test/fixtures/<vendor>/<name>`. */
export const fixtureReader = (vendor: string) => (name: string) => readFileSync(path.join(__dirname, '../fixtures', vendor, name), 'utf8');

export interface StubCall {
  url: string;
  init: RequestInit;
}

/** The stub's answer to one call; built per call, since a response body can be read only once. */
export type Reply = (call: StubCall) => Response;

export const replyWith =
  (body: string, status = 200, contentType = 'application/json') =>
  () =>
    new Response(body, { status, headers: { 'content-type': contentType } });

/** An SSE transcript delivered in small pieces, so events straddle read boundaries as on a real network. */
export const replyWithSse =
  (transcript: string, pieceSize = 7) =>
  () =>
    new Response(trickle(transcript, pieceSize), { status: 200, headers: { 'content-type': 'text/event-stream' } });

function trickle(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

/** A connection to the vendor's real base URL whose fetch answers with `reply` and keeps every call. */
export function stubConnection(
  adapter: Pick<ProviderAdapter, 'defaultBaseUrl' | 'faults'>,
  reply: Reply,
  overrides: Partial<ProviderConnection> = {},
): { conn: ProviderConnection; calls: StubCall[] } {
  const calls: StubCall[] = [];
  const fakeFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const call = { url: String(input), init: init ?? {} };
    calls.push(call);
    return reply(call);
  }) as typeof fetch;
  const conn = {
    apiKey: 'test-key',
    baseUrl: adapter.defaultBaseUrl,
    sandbox: false,
    fetch: fakeFetch,
    timeoutMs: 5000,
    faults: adapter.faults,
    ...overrides,
  };
  return { conn, calls };
}

// ---------- what went over the wire ----------

export interface SentRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** The body, parsed, when it was a JSON string. */
  body?: Record<string, unknown>;
  /** The fields of a multipart body; files by name, size and type. */
  form?: Record<string, string | { name: string; size: number; type: string }>;
}

/** Forwards to `inner` and appends what each call sent to `log`. */
export function recordingFetch(log: SentRequest[], inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const entry: SentRequest = {
      url: String(input),
      method: init?.method ?? 'GET',
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
    };
    if (typeof init?.body === 'string') entry.body = JSON.parse(init.body) as Record<string, unknown>;
    if (init?.body instanceof FormData) {
      entry.form = {};
      for (const [k, v] of init.body.entries()) {
        entry.form[k] = typeof v === 'string' ? v : { name: (v as File).name, size: v.size, type: v.type };
      }
    }
    log.push(entry);
    return inner(input, init);
  };
}

// ---------- outcomes ----------

/** The ProviderError that `run` fails with; the test fails if it succeeds or fails otherwise. */
export async function failure(run: Promise<unknown> | (() => Promise<unknown>)): Promise<ProviderError> {
  try {
    await (typeof run === 'function' ? run() : run);
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error('expected a ProviderError');
}

export async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const ev of events) out.push(ev);
  return out;
}
