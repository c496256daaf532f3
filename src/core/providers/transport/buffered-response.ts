export type RawHeaders = Record<string, string | string[] | undefined>;

export function toHeaders(raw: RawHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  }
  return out;
}

/**
 * A whole response already in memory. It offers what callers of a vendor API use (status, headers, text, json,
 * arrayBuffer, body, clone) without the cost of a WHATWG Response, whose body reads go through web streams.
 */
export class BufferedResponse {
  readonly ok: boolean;
  readonly type = 'basic';
  bodyUsed = false;
  private cachedHeaders?: Headers;

  constructor(
    readonly status: number,
    readonly statusText: string,
    private readonly rawHeaders: RawHeaders,
    private readonly data: Buffer,
    readonly url: string,
    readonly redirected: boolean,
  ) {
    this.ok = status >= 200 && status < 300;
  }

  /** Built on first use: most vendor answers are read without looking at a header. */
  get headers(): Headers {
    return (this.cachedHeaders ??= toHeaders(this.rawHeaders));
  }

  get body(): ReadableStream<Uint8Array> {
    return new Response(this.data).body!;
  }

  private consume(): Buffer {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.bodyUsed = true;
    return this.data;
  }

  async text(): Promise<string> {
    return this.consume().toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.consume();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(this.consume());
  }

  async blob(): Promise<Blob> {
    return new Blob([this.consume()], { type: this.headers.get('content-type') ?? '' });
  }

  clone(): BufferedResponse {
    return new BufferedResponse(this.status, this.statusText, this.rawHeaders, this.data, this.url, this.redirected);
  }
}
