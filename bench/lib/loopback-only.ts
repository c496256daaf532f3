import net from 'node:net';

// Preloaded (`node --require`) into the Portkey child: its server is started with a port only, which binds every
// interface; this keeps the benchmark on loopback by adding host 127.0.0.1 when the caller gave none.
const LOOPBACK = '127.0.0.1';
const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function patchedListen(this: net.Server, ...args: unknown[]) {
  const [first, second] = args;
  if (typeof first === 'number') {
    if (second === undefined && args.length > 1) args[1] = LOOPBACK;
    else if (typeof second !== 'string') args.splice(1, 0, LOOPBACK);
  } else if (first && typeof first === 'object' && 'port' in first && !('host' in first && (first as net.ListenOptions).host)) {
    args[0] = { ...(first as net.ListenOptions), host: LOOPBACK };
  }
  return (listen as (...a: unknown[]) => net.Server).apply(this, args);
} as typeof net.Server.prototype.listen;
