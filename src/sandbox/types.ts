import type { IncomingMessage, ServerResponse } from 'node:http';

/** One vendor's fake, mounted by the sandbox server under `/<vendor>`; `path` is what follows that prefix. */
export interface SandboxRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** Absolute base of this vendor's mount, e.g. `http://127.0.0.1:4010/replicate`, for URLs the fake hands out. */
  mountUrl: string;
}

export type SandboxHandler = (req: SandboxRequest, res: ServerResponse) => Promise<void> | void;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendBytes(res: ServerResponse, status: number, data: Buffer, mime: string): void {
  res.writeHead(status, { 'content-type': mime, 'content-length': data.length });
  res.end(data);
}
