/** JSON nested deeper than this is refused before it is parsed. */
export const MAX_JSON_DEPTH = 64;
/**
 * JSON with more values than this is refused before it is parsed: what JSON.parse costs grows with the number of
 * values far more than with bytes (a 30 MB string parses in tens of milliseconds, 900,000 small items in seconds).
 * Every documented body cap (docs: README "Security") fits well under it.
 */
export const MAX_JSON_VALUES = 150_000;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

export type ScanVerdict = 'ok' | 'too_deep' | 'too_many_values';

/**
 * Tracks the nesting depth and the number of values of JSON text fed to it chunk by chunk, without parsing it:
 * brackets and commas outside strings count, inside strings they do not (each comma separates one more value or
 * member, each bracket opens one). Constant memory and one pass, so a hostile body is refused at the byte that
 * crosses a limit, long before JSON.parse would see it.
 */
export class JsonDepthScanner {
  private depth = 0;
  private values = 1;
  private inString = false;
  private escaped = false;

  constructor(
    private readonly maxDepth = MAX_JSON_DEPTH,
    private readonly maxValues = MAX_JSON_VALUES,
  ) {}

  /** @returns 'ok', or the limit the text crossed (as soon as it crosses it) */
  feed(chunk: Uint8Array): ScanVerdict {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
      } else if (byte === QUOTE) {
        this.inString = true;
      } else if (byte === COMMA) {
        if (++this.values > this.maxValues) return 'too_many_values';
      } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        if (++this.depth > this.maxDepth) return 'too_deep';
        if (++this.values > this.maxValues) return 'too_many_values';
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        this.depth--;
      }
    }
    return 'ok';
  }
}
