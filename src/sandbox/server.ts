import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderName } from '../core/providers/types';
import { SandboxHandler, sendJson } from './types';

/** Model vendors, and the payment provider's fake. */
export type SandboxVendor = ProviderName | 'yookassa';

export interface SandboxServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  mountUrl(vendor: SandboxVendor): string;
  close(): Promise<void>;
}

export type SandboxHandlers = Partial<Record<SandboxVendor, SandboxHandler>>;

/** Starts the given vendor fakes on one loopback port, each under `/<vendor>`. */
export async function startSandbox(handlers: SandboxHandlers, port = 0): Promise<SandboxServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://sandbox');
      const [, vendor, ...rest] = url.pathname.split('/');
      const handler = Object.hasOwn(handlers, vendor) ? handlers[vendor as SandboxVendor] : undefined;
      if (!handler) {
        sendJson(res, 404, { error: { message: `no sandbox vendor at /${vendor}` } });
        return;
      }
      const origin = `http://${req.headers.host}`;
      Promise.resolve(
        handler(
          {
            method: req.method ?? 'GET',
            path: '/' + rest.join('/'),
            query: url.searchParams,
            headers: req.headers,
            body: Buffer.concat(chunks),
            mountUrl: `${origin}/${vendor}`,
          },
          res,
        ),
      ).catch((err: Error) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: `sandbox fault: ${err.message}` } });
        else res.destroy(err);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    mountUrl: (vendor) => `${origin}/${vendor}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
