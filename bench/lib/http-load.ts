import http from 'node:http';

/** One endpoint under test: where to POST and which headers it needs besides the JSON content type. */
export interface Target {
  name: string;
  /** e.g. `http://127.0.0.1:8787/v1/chat/completions` */
  url: string;
  headers: Record<string, string>;
}

export interface Outcome {
  ok: boolean;
  status: number;
  /** Request start to the last byte of the response (ms). */
  totalMs: number;
  /** Request start to the first byte of the response body (ms). */
  firstByteMs: number;
  problem?: string;
}

const REQUEST_TIMEOUT_MS = 10_000;

export function chatBody(stream: boolean): Buffer {
  const body: Record<string, unknown> = {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Say hello in one short sentence.' }],
    max_tokens: 32,
  };
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return Buffer.from(JSON.stringify(body));
}

/** Checks the answer is a real completion, so an error page never counts as a fast success. */
function problemWith(stream: boolean, status: number, contentType: string, text: string): string | undefined {
  if (status !== 200) return `HTTP ${status}: ${text.slice(0, 200)}`;
  if (stream) {
    if (!contentType.startsWith('text/event-stream')) return `content-type ${contentType}`;
    if (!/data: \[DONE\]\s*$/.test(text)) return `stream without [DONE]: ${text.slice(-200)}`;
    if (!text.includes('"content":"Hello"')) return 'stream without the answer text';
    return undefined;
  }
  try {
    const json = JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] };
    const content = json.choices?.[0]?.message?.content;
    return typeof content === 'string' && content.length > 0 ? undefined : 'completion without content';
  } catch {
    return `body is not JSON: ${text.slice(0, 200)}`;
  }
}

/** Sends one chat request and reads the whole answer. Never rejects. */
export function sendOnce(target: Target, agent: http.Agent, body: Buffer, stream: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    let firstByteMs = NaN;
    let settled = false;
    const finish = (o: Omit<Outcome, 'totalMs' | 'firstByteMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...o, totalMs: elapsed(), firstByteMs });
    };
    const req = http.request(target.url, {
      method: 'POST',
      agent,
      headers: { ...target.headers, 'content-type': 'application/json', 'content-length': body.length },
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('timeout')));
    req.on('error', (err) => finish({ ok: false, status: 0, problem: err.message }));
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => {
        if (parts.length === 0) firstByteMs = elapsed();
        parts.push(part);
      });
      res.on('error', (err) => finish({ ok: false, status: res.statusCode ?? 0, problem: err.message }));
      res.on('end', () => {
        const problem = problemWith(
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
  const body = chatBody(opts.stream);
  const outcomes: Outcome[] = [];
  const started = Date.now();
  const deadline = started + opts.maxMs;
  let issued = 0;
  const okByTarget = targets.map(() => 0);
  const worker = async (index: number) => {
    while (issued < opts.maxRequests && Date.now() < deadline) {
      issued += 1;
      const outcome = await sendOnce(targets[index], agent, body, opts.stream);
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
