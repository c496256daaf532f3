import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A minimal OpenAI-compatible upstream for the gateway benchmark: POST /v1/chat/completions answers at once,
// as one JSON body or as an SSE stream, for any bearer key. Shapes follow the Chat Completions reference
// (see test/fixtures/openai/chat-completion.json and chat-stream.txt).

const WORDS = ['Hello', '!', ' How can I assist you today?'];
const USAGE = { prompt_tokens: 19, completion_tokens: 10, total_tokens: 29 };
const MAX_BODY_BYTES = 1024 * 1024;

export interface MockUpstream {
  /** e.g. `http://127.0.0.1:40123` (no trailing slash; the API lives under `/v1`). */
  url: string;
  close(): Promise<void>;
}

/**
 * How long the mock waits before the first byte of each answer (0: at once). Set at start (`--first-byte-ms=20`) or
 * while it runs with `PUT /_mock/first-byte-ms/<ms>` (the bench switches between an instant and a 20 ms vendor).
 */
let firstByteMs = 0;
/** Pause between a stream's frames (`--chunk-delay-ms`), so streams stay open: the many-streams bench. */
let chunkDelayMs = 0;
const CONTROL = /^\/_mock\/first-byte-ms\/(\d+)$/;

interface ChatRequestView {
  model: string;
  stream: boolean;
  includeUsage: boolean;
}

function readView(raw: string): ChatRequestView | undefined {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!json || typeof json !== 'object') return undefined;
  const body = json as Record<string, unknown>;
  if (typeof body.model !== 'string' || !Array.isArray(body.messages)) return undefined;
  const options = body.stream_options as Record<string, unknown> | undefined | null;
  return { model: body.model, stream: body.stream === true, includeUsage: options?.include_usage === true };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: http.ServerResponse, status: number, message: string, type: string, code: string | null): void {
  sendJson(res, status, { error: { message, type, param: null, code } });
}

let counter = 0;
const nextId = () => `chatcmpl-mock${(++counter).toString(36)}`;

function completion(model: string): unknown {
  return {
    id: nextId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: WORDS.join(''), refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: USAGE,
    service_tier: 'default',
  };
}

function streamFrames(view: ChatRequestView): string {
  const base = { id: nextId(), object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: view.model };
  const usageNull = view.includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...usageNull })}\n\n`;
  let out = chunk({ role: 'assistant', content: '' }, null);
  for (const word of WORDS) out += chunk({ content: word }, null);
  out += chunk({}, 'stop');
  if (view.includeUsage) out += `data: ${JSON.stringify({ ...base, choices: [], usage: USAGE })}\n\n`;
  return `${out}data: [DONE]\n\n`;
}

function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
  const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
  const control = CONTROL.exec(path);
  if (req.method === 'PUT' && control) {
    firstByteMs = Number(control[1]);
    sendJson(res, 200, { first_byte_ms: firstByteMs });
    return;
  }
  if (firstByteMs > 0) setTimeout(() => answer(req, res, raw, path), firstByteMs);
  else answer(req, res, raw, path);
}

function answer(req: http.IncomingMessage, res: http.ServerResponse, raw: string, path: string): void {
  if (req.method !== 'POST' || path !== '/v1/chat/completions') {
    sendError(res, 404, `Unknown request URL: ${req.method} ${req.url}`, 'invalid_request_error', 'unknown_url');
    return;
  }
  if (!/^Bearer\s+\S+/i.test(req.headers.authorization ?? '')) {
    sendError(res, 401, "You didn't provide an API key.", 'invalid_request_error', null);
    return;
  }
  const view = readView(raw);
  if (!view) {
    sendError(res, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null);
    return;
  }
  if (!view.stream) {
    sendJson(res, 200, completion(view.model));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const frames = streamFrames(view).split(/(?<=\n\n)/);
  if (chunkDelayMs > 0) {
    const next = () => {
      if (res.destroyed) return;
      res.write(frames.shift()!);
      if (frames.length === 0) res.end();
      else setTimeout(next, chunkDelayMs);
    };
    next();
    return;
  }
  // Each frame is its own write, as a vendor flushes each chunk; the whole answer leaves at once.
  for (const frame of frames) res.write(frame);
  res.end();
}

export function startMockUpstream(
  port = 0,
  host = '127.0.0.1',
  options: { firstByteMs?: number; chunkDelayMs?: number } = {},
): Promise<MockUpstream> {
  firstByteMs = options.firstByteMs ?? firstByteMs;
  chunkDelayMs = options.chunkDelayMs ?? chunkDelayMs;
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (part: Buffer) => {
      size += part.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else parts.push(part);
    });
    req.on('end', () => handle(req, res, Buffer.concat(parts).toString('utf8')));
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: 4096 }, () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://${host}:${bound}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** Sets the mock's wait before each answer's first byte (it runs in another process). */
export async function setFirstByteMs(mockUrl: string, ms: number): Promise<void> {
  const res = await fetch(`${mockUrl}/_mock/first-byte-ms/${ms}`, { method: 'PUT' });
  if (!res.ok) throw new Error(`the mock refused its first-byte delay: HTTP ${res.status}`);
}

// Run alone (`node dist/bench/mock-upstream.js [--port=N] [--first-byte-ms=20]`): prints `{"url": ...}` once listening.
if (require.main === module) {
  const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  void startMockUpstream(Number(flag('port') ?? 0), '127.0.0.1', {
    firstByteMs: Number(flag('first-byte-ms') ?? 0),
    chunkDelayMs: Number(flag('chunk-delay-ms') ?? 0),
  }).then((mock) => {
    process.stdout.write(`${JSON.stringify({ url: mock.url })}\n`);
    const stop = () => void mock.close().then(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
