import net from 'node:net';

/**
 * A TCP proxy a test can cut (every connection reset, new ones refused) and restore: a database outage on demand.
 * `retarget` sends new connections to another server behind the same address (a failover).
 */
export interface TcpProxy {
  port: number;
  cut(): void;
  restore(): Promise<void>;
  retarget(host: string, port: number): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let target = { host: targetHost, port: targetPort };
  const sockets = new Set<net.Socket>();
  const listen = (port: number) =>
    new Promise<net.Server>((resolve, reject) => {
      const server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        sockets.add(client).add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server));
    });
  let server: net.Server | undefined = await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
      for (const s of sockets) s.resetAndDestroy();
      sockets.clear();
    });
  return {
    port,
    cut: () => void stop(),
    restore: async () => {
      server ??= await listen(port);
    },
    retarget: (host, to) => {
      target = { host, port: to };
    },
    close: stop,
  };
}
