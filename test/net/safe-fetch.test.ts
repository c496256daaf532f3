import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { FetchFailedError, safeFetch, UnsafeUrlError, type HostResolver } from '../../src/core/net/safe-fetch';
import { waitUntil } from '../support/wait';

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface TestServer {
  port: number;
  origin: string;
  hostPort: string;
  requests: http.IncomingMessage[];
  close(): Promise<void>;
}

async function startServer(route: Route): Promise<TestServer> {
  const requests: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req);
    route(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const base = { maxBytes: 1024 * 1024, timeoutMs: 5000 };

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the fetch to fail');
}

describe('safeFetch refusals', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((_req, res) => res.end('should never be reached'));
  });
  afterAll(() => server.close());

  it.each([
    'http://127.0.0.1/',
    'http://localhost/',
    'http://10.0.0.5/',
    'http://172.16.3.4/',
    'http://192.168.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[fd00:ec2::254]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:7f00:1::]/',
    'http://[::]/',
    'http://0.0.0.0/',
    'http://100.64.0.1/',
    'http://2130706433/', // decimal 127.0.0.1
    'http://0177.0.0.1/', // octal
    'http://0x7f.1/', // hex, short form
    'http://127.1/',
    'https://169.254.169.254/',
  ])('refuses %s with UnsafeUrlError(forbidden_address)', async (url) => {
    const err = await failure(safeFetch(url, base));
    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect((err as UnsafeUrlError).reason).toBe('forbidden_address');
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/file', 'gopher://example.com/', 'data:text/plain,hi', 'javascript:alert(1)'])(
    'refuses the scheme of %s',
    async (url) => {
      const err = await failure(safeFetch(url, base));
      expect(err).toBeInstanceOf(UnsafeUrlError);
      expect((err as UnsafeUrlError).reason).toBe('scheme_not_allowed');
    },
  );

  it('refuses a string that is not a URL', async () => {
    const err = await failure(safeFetch('not a url', base));
    expect((err as UnsafeUrlError).reason).toBe('invalid_url');
  });

  it('refuses http when only https is allowed', async () => {
    const err = await failure(safeFetch('http://example.com/', { ...base, allowedSchemes: ['https'] }));
    expect((err as UnsafeUrlError).reason).toBe('scheme_not_allowed');
  });

  it('does not connect to a loopback server that is not allow-listed', async () => {
    const err = await failure(safeFetch(`${server.origin}/x`, base));
    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect(server.requests).toHaveLength(0);
  });

  it('allow-listing is exact host:port (another port stays refused)', async () => {
    const err = await failure(safeFetch(`${server.origin}/x`, { ...base, allowPrivateHosts: [`127.0.0.1:${server.port + 1}`] }));
    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('safeFetch DNS handling', () => {
  it('refuses a name whose answer mixes a public and a private address (rebinding)', async () => {
    const resolve: HostResolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const err = await failure(safeFetch('http://rebind.example/', { ...base, resolve }));
    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect(err.message).toMatch(/127\.0\.0\.1/);
  });

  it('refuses a name resolving to an IPv4-mapped loopback address', async () => {
    const resolve: HostResolver = async () => [{ address: '::ffff:127.0.0.1', family: 6 }];
    const err = await failure(safeFetch('http://mapped.example/', { ...base, resolve }));
    expect(err).toBeInstanceOf(UnsafeUrlError);
  });

  it('connects to the checked address only: the resolver is asked once and no second lookup happens', async () => {
    const server = await startServer((req, res) => res.end(`host=${req.headers.host}`));
    try {
      // The name does not exist in real DNS, so success proves the socket used the pinned address.
      let calls = 0;
      const resolve: HostResolver = async () => {
        calls++;
        return calls === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.9.9.9', family: 4 }];
      };
      const url = `http://pinned.invalid:${server.port}/`;
      const out = await safeFetch(url, { ...base, resolve, allowPrivateHosts: [`pinned.invalid:${server.port}`] });
      expect(calls).toBe(1);
      expect(out.data.toString()).toBe(`host=pinned.invalid:${server.port}`);
    } finally {
      await server.close();
    }
  });

  describe('over https', () => {
    // Self-signed certificate for DNS:pinned.invalid (test/net/fixtures, valid until 2126).
    const cert = readFileSync(path.join(__dirname, 'fixtures', 'pinned-test.crt'));
    const key = readFileSync(path.join(__dirname, 'fixtures', 'pinned-test.key'));
    let server: https.Server;
    let port: number;
    const seen: { servername: string | false | null; host?: string }[] = [];
    const toLoopback: HostResolver = async () => [{ address: '127.0.0.1', family: 4 }];

    beforeAll(async () => {
      server = https.createServer({ cert, key }, (req, res) => {
        seen.push({ servername: (req.socket as TLSSocket).servername, host: req.headers.host });
        res.end('tls ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('keeps SNI, certificate check and Host on the name while connecting to the pinned address', async () => {
      const out = await safeFetch(`https://pinned.invalid:${port}/`, {
        ...base,
        resolve: toLoopback,
        allowPrivateHosts: [`pinned.invalid:${port}`],
        ca: cert,
      });
      expect(out.data.toString()).toBe('tls ok');
      expect(seen.at(-1)).toEqual({ servername: 'pinned.invalid', host: `pinned.invalid:${port}` });
    });

    it('fails when the certificate does not match the requested name', async () => {
      const err = await failure(
        safeFetch(`https://other.invalid:${port}/`, {
          ...base,
          resolve: toLoopback,
          allowPrivateHosts: [`other.invalid:${port}`],
          ca: cert,
        }),
      );
      expect((err as FetchFailedError).kind).toBe('unreachable');
      expect(err.message).toMatch(/other\.invalid|altnames/i);
    });
  });

  it('reports an unresolvable name as FetchFailedError(unreachable)', async () => {
    const resolve: HostResolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const err = await failure(safeFetch('http://nowhere.example/', { ...base, resolve }));
    expect(err).toBeInstanceOf(FetchFailedError);
    expect((err as FetchFailedError).kind).toBe('unreachable');
  });
});

describe('safeFetch against an allow-listed loopback server', () => {
  let server: TestServer;
  /** Requests to `/hang` the server received (and never answers). */
  const hangs: string[] = [];
  let forbidden: TestServer;
  let opts: Parameters<typeof safeFetch>[1];
  let closedEarly: Promise<{ bytesWritten: number; finished: boolean }>;

  beforeAll(async () => {
    forbidden = await startServer((_req, res) => res.end('internal secret'));
    let reportClose: (v: { bytesWritten: number; finished: boolean }) => void = () => undefined;
    closedEarly = new Promise((resolve) => (reportClose = resolve));
    server = await startServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      switch (url.pathname) {
        case '/image':
          res.writeHead(200, { 'content-type': 'Image/PNG; charset=binary' });
          res.end(Buffer.from([1, 2, 3, 4]));
          return;
        case '/echo-auth':
          res.end(JSON.stringify({ authorization: req.headers.authorization ?? null }));
          return;
        case '/to-metadata':
          res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
          res.end();
          return;
        case '/to-forbidden':
          res.writeHead(307, { location: `${forbidden.origin}/` });
          res.end();
          return;
        case '/to-file':
          res.writeHead(301, { location: 'file:///etc/passwd' });
          res.end();
          return;
        case '/chain': {
          const left = Number(url.searchParams.get('n'));
          if (left > 0) res.writeHead(302, { location: `/chain?n=${left - 1}` }).end();
          else res.end('end of chain');
          return;
        }
        case '/with-creds-redirect':
          res.writeHead(302, { location: `http://alice:secret@${req.headers.host}/echo-auth` }).end();
          return;
        case '/missing':
          res.writeHead(404).end('nope');
          return;
        case '/big-declared':
          res.writeHead(200, { 'content-length': String(2 * 1024 * 1024) });
          res.write(Buffer.alloc(1024));
          return; // never finishes; the client must give up on the header alone
        case '/big-stream': {
          // 2 MB in 64 KB chunks, paced so the socket buffers cannot swallow it all at once.
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          const chunk = Buffer.alloc(64 * 1024, 7);
          let sent = 0;
          const timer = setInterval(() => {
            if (sent >= 2 * 1024 * 1024) {
              clearInterval(timer);
              res.end();
              return;
            }
            res.write(chunk);
            sent += chunk.length;
          }, 5);
          res.on('close', () => {
            clearInterval(timer);
            reportClose({ bytesWritten: sent, finished: res.writableFinished });
          });
          return;
        }
        case '/hang':
          hangs.push(req.url ?? '');
          return; // no response at all
        case '/drip': {
          res.writeHead(200);
          const timer = setInterval(() => res.write('x'), 50);
          res.on('close', () => clearInterval(timer));
          return;
        }
        default:
          res.writeHead(500).end();
      }
    });
    opts = { ...base, allowPrivateHosts: [server.hostPort] };
  });
  afterAll(async () => {
    await server.close();
    await forbidden.close();
  });

  it('returns the body, the bare media type and the final URL', async () => {
    const out = await safeFetch(`${server.origin}/image`, opts);
    expect(out.data).toEqual(Buffer.from([1, 2, 3, 4]));
    expect(out.mime).toBe('image/png');
    expect(out.finalUrl).toBe(`${server.origin}/image`);
  });

  it('accepts a URL with credentials but never sends them', async () => {
    const out = await safeFetch(`http://bob:hunter2@${server.hostPort}/echo-auth`, opts);
    expect(JSON.parse(out.data.toString())).toEqual({ authorization: null });
    expect(out.finalUrl).not.toMatch(/bob|hunter2/);
  });

  it('strips credentials from a redirect target too', async () => {
    const out = await safeFetch(`${server.origin}/with-creds-redirect`, opts);
    expect(JSON.parse(out.data.toString())).toEqual({ authorization: null });
    expect(out.finalUrl).toBe(`${server.origin}/echo-auth`);
  });

  it('refuses a redirect to the cloud metadata address', async () => {
    const err = await failure(safeFetch(`${server.origin}/to-metadata`, opts));
    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect(err.message).toMatch(/169\.254\.169\.254/);
  });

  it('re-validates every hop: a redirect to a non-allow-listed loopback port is refused before connecting', async () => {
    const before = forbidden.requests.length;
    const err = await failure(safeFetch(`${server.origin}/to-forbidden`, opts));
    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect(forbidden.requests.length).toBe(before);
  });

  it('refuses a redirect to a file: URL', async () => {
    const err = await failure(safeFetch(`${server.origin}/to-file`, opts));
    expect((err as UnsafeUrlError).reason).toBe('scheme_not_allowed');
  });

  it('follows up to 5 redirects', async () => {
    const out = await safeFetch(`${server.origin}/chain?n=5`, opts);
    expect(out.data.toString()).toBe('end of chain');
    expect(out.finalUrl).toBe(`${server.origin}/chain?n=0`);
  });

  it('gives up on the 6th redirect', async () => {
    const err = await failure(safeFetch(`${server.origin}/chain?n=6`, opts));
    expect(err).toBeInstanceOf(FetchFailedError);
    expect((err as FetchFailedError).kind).toBe('too_many_redirects');
  });

  it('reports a non-2xx status as bad_status', async () => {
    const err = await failure(safeFetch(`${server.origin}/missing`, opts));
    expect((err as FetchFailedError).kind).toBe('bad_status');
    expect((err as FetchFailedError).status).toBe(404);
  });

  // The body never finishes: only a refusal on the header alone can end this as too_large (not timeout).
  // How long it takes is measured by `npm run bench:faults`.
  it('refuses a declared Content-Length over the cap without waiting for the body', async () => {
    const err = await failure(safeFetch(`${server.origin}/big-declared`, opts));
    expect((err as FetchFailedError).kind).toBe('too_large');
  });

  it('aborts a 2 MB stream at the 1 MB cap and the server sees the connection closed early', async () => {
    const err = await failure(safeFetch(`${server.origin}/big-stream`, opts));
    expect(err).toBeInstanceOf(FetchFailedError);
    expect((err as FetchFailedError).kind).toBe('too_large');
    const seen = await closedEarly;
    expect(seen.finished).toBe(false);
    expect(seen.bytesWritten).toBeLessThan(2 * 1024 * 1024);
  });

  it('times out when the server never answers', async () => {
    const err = await failure(safeFetch(`${server.origin}/hang`, { ...opts, timeoutMs: 300 }));
    expect((err as FetchFailedError).kind).toBe('timeout');
  });

  it('times out on a body that trickles past the total budget', async () => {
    const err = await failure(safeFetch(`${server.origin}/drip`, { ...opts, timeoutMs: 400 }));
    expect((err as FetchFailedError).kind).toBe('timeout');
  });

  it('reports a closed port as unreachable', async () => {
    const closed = await startServer(() => undefined);
    const port = closed.port;
    await closed.close();
    const err = await failure(safeFetch(`http://127.0.0.1:${port}/`, { ...base, allowPrivateHosts: [`127.0.0.1:${port}`] }));
    expect((err as FetchFailedError).kind).toBe('unreachable');
  });

  it('honours a caller abort signal', async () => {
    const controller = new AbortController();
    const before = hangs.length;
    const pending = failure(safeFetch(`${server.origin}/hang`, { ...opts, signal: controller.signal }));
    // The caller goes away while the request waits on the server.
    await waitUntil(() => hangs.length > before, 5000, 'the request to reach the server');
    controller.abort(new Error('client went away'));
    const err = await pending;
    expect((err as FetchFailedError).kind).toBe('aborted');
  });
});
