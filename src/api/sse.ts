import type { ParameterizedContext } from 'koa';

export interface SseChannel {
  /** Writes one frame and flushes it; false once the client is gone. */
  write(frame: string): boolean;
  event(name: string, data: unknown): boolean;
  data(data: unknown): boolean;
  close(): void;
}

/**
 * Takes over the response for server-sent events: headers already set on ctx (rate limits, request id) are sent,
 * and Nagle is off so each frame leaves at once. A client leaving is seen through `clientSignal`.
 */
export function openSse(ctx: ParameterizedContext, heartbeat?: { everyMs: number; frame: string }): SseChannel {
  ctx.respond = false;
  const res = ctx.res;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.response.headers)) if (v !== undefined) headers[k] = String(v);
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  ctx.req.socket.setNoDelay(true);
  res.flushHeaders();
  const timer = heartbeat ? setInterval(() => write(heartbeat.frame), heartbeat.everyMs) : undefined;
  timer?.unref();
  function write(frame: string): boolean {
    if (res.destroyed || res.writableEnded) return false;
    res.write(frame);
    return true;
  }
  return {
    write,
    event: (name, data) => write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`),
    data: (data) => write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`),
    close: () => {
      if (timer) clearInterval(timer);
      if (!res.writableEnded) res.end();
    },
  };
}
