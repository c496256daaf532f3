import http from 'node:http';

/** Which wire format a target speaks: chat completions (default), the Anthropic Messages API or the Responses API. */
export type Surface = 'chat' | 'messages' | 'responses';

/** One endpoint under test: where to POST and which headers it needs besides the JSON content type. */
export interface Target {
  name: string;
  /** e.g. `http://127.0.0.1:8787/v1/chat/completions` */
  url: string;
  headers: Record<string, string>;
  surface?: Surface;
}

export interface Outcome {
  ok: boolean;
  status: number;
  /** Request start to the last byte of the response (ms). */
  totalMs: number;
  /** Request start to the first byte of the response body (ms). */
  firstByteMs: number;
  /** Request start to the socket's connection (ms; NaN on a reused keep-alive socket). */
  connectMs?: number;
  /** Request start to the response head (ms). */
  headMs?: number;
  problem?: string;
}

const REQUEST_TIMEOUT_MS = 10_000;

const PROMPT = 'Say hello in one short sentence.';

/** The same request (gpt-6-luna, at most 32 tokens) in each surface's own shape. */
export function requestBody(surface: Surface, stream: boolean): Buffer {
  if (surface === 'chat') return chatBody(stream);
  const body: Record<string, unknown> =
    surface === 'messages'
      ? { model: 'gpt-6-luna', max_tokens: 32, messages: [{ role: 'user', content: PROMPT }] }
      : { model: 'gpt-6-luna', max_output_tokens: 32, input: PROMPT };
  if (stream) body.stream = true;
  return Buffer.from(JSON.stringify(body));
}

export function chatBody(stream: boolean): Buffer {
  const body: Record<string, unknown> = {
    model: 'gpt-6-luna',
    messages: [{ role: 'user', content: PROMPT }],
    max_tokens: 32,
  };
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return Buffer.from(JSON.stringify(body));
}

/** The text of a whole (non-streamed) answer in the surface's shape, or undefined. */
function answerText(surface: Surface, json: unknown): unknown {
  if (surface === 'messages') return (json as { content?: { text?: unknown }[] }).content?.[0]?.text;
  if (surface === 'responses') {
    const output = (json as { output?: { type?: string; content?: { text?: unknown }[] }[] }).output ?? [];
    return output.find((o) => o.type === 'message')?.content?.[0]?.text;
  }
  return (json as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
}

/** How each surface's stream ends, and how its first answer text looks on the wire. */
const STREAM_SHAPES: Record<Exclude<Surface, 'chat'>, { end: RegExp; text: string }> = {
  messages: { end: /event: message_stop\ndata: \{"type":"message_stop"\}\s*$/, text: '"text":"Hello"' },
  responses: { end: /event: response\.completed\ndata: .*\s*$/, text: '"delta":"Hello"' },
};

/** Checks the answer is a real completion, so an error page never counts as a fast success. */
function problemWith(surface: Surface, stream: boolean, status: number, contentType: string, text: string): string | undefined {
  if (status !== 200) return `HTTP ${status}: ${text.slice(0, 200)}`;
  if (stream && surface !== 'chat') {
    const shape = STREAM_SHAPES[surface];
    if (!contentType.startsWith('text/event-stream')) return `content-type ${contentType}`;
    if (!shape.end.test(text)) return `stream without its end event: ${text.slice(-200)}`;
    if (!text.includes(shape.text)) return 'stream without the answer text';
    return undefined;
  }
  if (stream) {
    if (!contentType.startsWith('text/event-stream')) return `content-type ${contentType}`;
    if (!/data: \[DONE\]\s*$/.test(text)) return `stream without [DONE]: ${text.slice(-200)}`;
    if (!text.includes('"content":"Hello"')) return 'stream without the answer text';
    return undefined;
  }
  try {
    const content = answerText(surface, JSON.parse(text));
    return typeof content === 'string' && content.length > 0 ? undefined : 'completion without content';
  } catch {
    return `body is not JSON: ${text.slice(0, 200)}`;
  }
}

/** Sends one chat request and reads the whole answer. Never rejects. */
export function sendOnce(
  target: Target,
  agent: http.Agent,
  body: Buffer,
  stream: boolean,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    let firstByteMs = NaN;
    let connectMs = NaN;
    let headMs = NaN;
    let settled = false;
    const finish = (o: Omit<Outcome, 'totalMs' | 'firstByteMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...o, totalMs: elapsed(), firstByteMs, connectMs, headMs });
    };
    const req = http.request(target.url, {
      method: 'POST',
      agent,
      headers: { ...target.headers, 'content-type': 'application/json', 'content-length': body.length },
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', (err) => finish({ ok: false, status: 0, problem: err.message }));
    req.on('socket', (socket) => {
      if (socket.connecting) socket.once('connect', () => (connectMs = elapsed()));
    });
    req.on('response', (res) => {
      headMs = elapsed();
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => {
        if (parts.length === 0) firstByteMs = elapsed();
        parts.push(part);
      });
      res.on('error', (err) => finish({ ok: false, status: res.statusCode ?? 0, problem: err.message }));
      res.on('end', () => {
        const problem = problemWith(
          target.surface ?? 'chat',
          stream,
          res.statusCode ?? 0,
          String(res.headers['content-type'] ?? ''),
          Buffer.concat(parts).toString('utf8'),
        );
        finish({ ok: problem === undefined, status: res.statusCode ?? 0, problem });
      });
    });
    req.end(body);
  });
}

export interface RunOptions {
  concurrency: number;
  /** Stop after this many requests... */
  maxRequests: number;
  /** ...or once this much time has passed (whichever comes first). */
  maxMs: number;
  stream: boolean;
}

export interface RunResult {
  outcomes: Outcome[];
  elapsedMs: number;
  ok: number;
  failed: number;
  /** Status code -> count, for the failures' shape. */
  statuses: Record<number, number>;
  /** Successful answers per target (in the order given). */
  okByTarget: number[];
  firstProblem?: string;
}

/**
 * `concurrency` workers on keep-alive connections, each sending requests back to back until a bound is hit.
 * With several targets (e.g. one per account), worker i sends to target i modulo their number.
 */
export async function runLoad(target: Target | readonly Target[], opts: RunOptions): Promise<RunResult> {
  const targets = Array.isArray(target) ? target : [target as Target];
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency, maxFreeSockets: opts.concurrency });
  const bodies = targets.map((t) => requestBody(t.surface ?? 'chat', opts.stream));
  const outcomes: Outcome[] = [];
  const started = Date.now();
  const deadline = started + opts.maxMs;
  let issued = 0;
  const okByTarget = targets.map(() => 0);
  const worker = async (index: number) => {
    while (issued < opts.maxRequests && Date.now() < deadline) {
      issued += 1;
      const outcome = await sendOnce(targets[index], agent, bodies[index], opts.stream);
      outcomes.push(outcome);
      if (outcome.ok) okByTarget[index] += 1;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, i) => worker(i % targets.length)));
  const elapsedMs = Date.now() - started;
  agent.destroy();
  const statuses: Record<number, number> = {};
  let ok = 0;
  let firstProblem: string | undefined;
  for (const o of outcomes) {
    statuses[o.status] = (statuses[o.status] ?? 0) + 1;
    if (o.ok) ok += 1;
    else firstProblem ??= o.problem;
  }
  return { outcomes, elapsedMs, ok, failed: outcomes.length - ok, statuses, okByTarget, firstProblem };
}
