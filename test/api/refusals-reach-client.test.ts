// Early refusals reach a client that keeps sending: a raw TCP client writes its whole body (as curl and the SDKs
// do) while it reads, and must get the status line and the documented JSON body, never EPIPE or a reset. The server
// answers, reads and drops the rest of the body (bounded), then closes.
import net from 'node:net';
import { ApiHarness, startApi } from './harness';

let api: ApiHarness;
let token: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.accessToken(await api.account('vip'));
});
afterAll(() => api.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** Bytes of the body the client managed to write before it saw the end of the connection. */
  written: number;
  socketError?: string;
}

/**
 * Sends the head, then the whole body in pieces (honouring backpressure, with `pauseMs` between pieces, as a client
 * on a real network would be still sending when the refusal comes) whatever the server answers meanwhile; resolves
 * once the server closed the connection, with what arrived.
 */
function rawRequest(head: string, body: Buffer | (() => Generator<Buffer>), pauseMs = 0): Promise<RawAnswer> {
  const { port } = new URL(api.baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    let written = 0;
    let socketError: string | undefined;
    socket.on('data', (d) => received.push(d));
    socket.on('error', (err: NodeJS.ErrnoException) => (socketError = err.code ?? err.message));
    socket.on('close', () => {
      const text = Buffer.concat(received).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...headerLines] = (split < 0 ? text : text.slice(0, split)).split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const rawBody = split < 0 ? '' : text.slice(split + 4);
      let parsed: unknown = rawBody;
      try {
        parsed = JSON.parse(rawBody);
      } catch {
        // left as text
      }
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, body: parsed, written, socketError });
    });
    socket.once('connect', async () => {
      socket.write(head);
      const pieces = Buffer.isBuffer(body) ? chunksOf(body, pauseMs ? 16 * 1024 : 64 * 1024) : body();
      for (const piece of pieces) {
        if (socket.destroyed) return;
        written += piece.length;
        if (!socket.write(piece)) await drained(socket);
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}

function drained(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done).off('close', done);
      resolve();
    };
    socket.on('drain', done).on('close', done);
  });
}

function* chunksOf(body: Buffer, size = 64 * 1024): Generator<Buffer> {
  for (let at = 0; at < body.length; at += size) yield body.subarray(at, at + size);
}

const nested = (depth: number) => Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`);

function headOf(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1`, `Authorization: Bearer ${token}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A multipart body with one `audio` file of `size` bytes. */
function multipart(size: number): { boundary: string; body: Buffer } {
  const boundary = 'refusal-boundary-7f3a';
  const start = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="meeting.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
  );
  const end = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { boundary, body: Buffer.concat([start, Buffer.alloc(size, 0x41), end]) };
}

function expectDelivered(answer: RawAnswer, sent: number): void {
  expect(answer.socketError).toBeUndefined();
  expect(answer.written).toBe(sent);
  expect(answer.headers.connection).toBe('close');
}

test('26 MB STT upload (declared length): 413 and its body, the whole upload sent', async () => {
  const { boundary, body } = multipart(26 * 1024 * 1024);
  const answer = await rawRequest(
    headOf('POST', '/api/v2/stt', { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': body.length }),
    body,
  );
  expectDelivered(answer, body.length);
  expect(answer.status).toBe(413);
  expect(answer.body).toMatchObject({ error: 'payload_too_large', message: expect.stringMatching(/25 MB/) });
}, 60_000);

test('26 MB STT upload (chunked, cut while it streams): 413 and its body, the whole upload sent', async () => {
  const { boundary, body } = multipart(26 * 1024 * 1024);
  const answer = await rawRequest(
    headOf('POST', '/api/v2/stt', { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Transfer-Encoding': 'chunked' }),
    function* () {
      for (const piece of chunksOf(body))
        yield Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);
      yield Buffer.from('0\r\n\r\n');
    },
  );
  expect(answer.socketError).toBeUndefined();
  expect(answer.status).toBe(413);
  expect(answer.body).toMatchObject({ error: 'payload_too_large' });
}, 60_000);

test('100,000-deep JSON on /api/v2/generate: 400 json_too_deep and its body', async () => {
  const body = nested(100_000);
  const answer = await rawRequest(
    headOf('POST', '/api/v2/generate', { 'Content-Type': 'application/json', 'Content-Length': body.length }),
    body,
    2,
  );
  expectDelivered(answer, body.length);
  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({ error: 'json_too_deep', message: expect.stringMatching(/64 levels/) });
});

test('100,000-deep JSON on /v1/chat/completions: 400 in the chat-completions error shape', async () => {
  const body = nested(100_000);
  const answer = await rawRequest(
    headOf('POST', '/v1/chat/completions', { 'Content-Type': 'application/json', 'Content-Length': body.length }),
    body,
    2,
  );
  expectDelivered(answer, body.length);
  expect(answer.status).toBe(400);
  expect(answer.body).toEqual({ error: expect.objectContaining({ code: 'json_too_deep', type: 'invalid_request_error' }) });
});

test('2 MB on PATCH /api/v2/user/settings: 413 and its body', async () => {
  const body = Buffer.from(JSON.stringify({ language: 'en', pad: 'x'.repeat(2 * 1024 * 1024) }));
  const answer = await rawRequest(
    headOf('PATCH', '/api/v2/user/settings', { 'Content-Type': 'application/json', 'Content-Length': body.length }),
    body,
    1,
  );
  expectDelivered(answer, body.length);
  expect(answer.status).toBe(413);
  expect(answer.body).toMatchObject({ error: 'payload_too_large' });
});

test('a body past the discard bound still gets its answer first, then the connection closes', async () => {
  // 100 MB declared, more than the 64 MB the server reads and drops: the answer comes, the rest is cut off.
  const declared = 100 * 1024 * 1024;
  const answer = await rawRequest(
    headOf('POST', '/api/v2/generate', { 'Content-Type': 'application/json', 'Content-Length': declared }),
    function* () {
      for (let sent = 0; sent < declared; sent += 64 * 1024) yield Buffer.alloc(64 * 1024, 0x20);
    },
  );
  expect(answer.status).toBe(413);
  expect(answer.body).toMatchObject({ error: 'payload_too_large' });
  expect(answer.written).toBeLessThan(declared);
}, 60_000);
