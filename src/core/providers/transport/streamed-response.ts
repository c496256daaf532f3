import { Readable } from 'node:stream';
import { RawHeaders, toHeaders } from './buffered-response';

/**
 * An event stream as it arrives, fetch-compatible: `body` is the WHATWG stream callers of fetch expect, made only
 * when asked for. The SSE reader takes the Node stream underneath instead (`nodeBodyOf`), which spares every
 * chunk the trip through the web-stream adapters.
 */
export class StreamedResponse {
  readonly ok: boolean;
  readonly type = 'basic';
  readonly statusText = '';
  readonly redirected = false;
  private cachedHeaders?: Headers;
  private web?: ReadableStream<Uint8Array>;

  constructor(
    readonly status: number,
    private readonly rawHeaders: RawHeaders,
    private readonly node: Readable,
    readonly url: string,
  ) {
    this.ok = status >= 200 && status < 300;
  }

  get headers(): Headers {
    return (this.cachedHeaders ??= toHeaders(this.rawHeaders));
  }

  get bodyUsed(): boolean {
    return this.node.readableDidRead;
  }

  get body(): ReadableStream<Uint8Array> {
    return (this.web ??= Readable.toWeb(this.node) as ReadableStream<Uint8Array>);
  }

  /** The Node stream, unless the web stream was made from it already (then it belongs to that). */
  nodeBody(): Readable | undefined {
    return this.web ? undefined : this.node;
  }

  async text(): Promise<string> {
    return Buffer.concat(await this.node.toArray()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

/** The Node stream under a vendor client's event-stream response; undefined for any other Response. */
export function nodeBodyOf(res: unknown): Readable | undefined {
  return res instanceof StreamedResponse ? res.nodeBody() : undefined;
}
