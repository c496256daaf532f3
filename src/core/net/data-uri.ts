import { FetchFailedError, UnsafeUrlError } from './errors';

const DATA_URI = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)?((?:;[a-z0-9_.-]+=[^;,]*)*);base64,/i;

/**
 * Decodes a base64 `data:` URI given where an input image URL is expected. The size is checked from the
 * encoded length before anything is decoded. Only base64 payloads are accepted.
 */
export function parseDataUri(uri: string, maxBytes: number): { data: Buffer; mime: string } {
  const head = DATA_URI.exec(uri.slice(0, 300));
  if (!head) throw new UnsafeUrlError('invalid_url', 'not a base64 data: URI');
  const payload = uri.slice(head[0].length).replace(/\s+/g, '');
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  const decodedLength = Math.floor((payload.length * 3) / 4) - padding;
  if (decodedLength > maxBytes) {
    throw new FetchFailedError('too_large', `data: URI holds ${decodedLength} bytes, the limit is ${maxBytes}`);
  }
  if (payload.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) {
    throw new UnsafeUrlError('invalid_url', 'data: URI payload is not valid base64');
  }
  return { data: Buffer.from(payload, 'base64'), mime: (head[1] ?? 'application/octet-stream').toLowerCase() };
}
