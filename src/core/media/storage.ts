import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { DomainError } from '../errors';

/** A stored result: either bytes in memory or a stream to pipe out, plus what it is. */
export type StoredObject = {
  mime: string;
  /** The whole object's size, also when only a range is returned. */
  size: number;
  /** A strong validator (quoted), the same on every instance for the same bytes. */
  etag?: string;
  /** Present when a range was asked for: the inclusive byte positions returned. */
  range?: { start: number; end: number };
} & ({ data: Buffer; stream?: undefined } | { stream: Readable; data?: undefined });

/** `bytes=a-b`, `bytes=a-` or `bytes=-n` (the last n bytes). */
export type ByteRange = { start: number; end?: number } | { suffix: number };

/** The requested range lies beyond the object. */
export class RangeNotSatisfiableError extends DomainError {
  readonly code = 'range_not_satisfiable';
  constructor(readonly size: number) {
    super(`range not satisfiable (size ${size})`, { size });
  }
}

/** Inclusive positions of `range` within an object of `size` bytes. @throws RangeNotSatisfiableError */
export function resolveRange(range: ByteRange, size: number): { start: number; end: number } {
  if ('suffix' in range) {
    if (range.suffix <= 0 || size === 0) throw new RangeNotSatisfiableError(size);
    return { start: Math.max(0, size - range.suffix), end: size - 1 };
  }
  if (range.start >= size || (range.end !== undefined && range.end < range.start)) throw new RangeNotSatisfiableError(size);
  return { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) };
}

/**
 * Where generated result files live. Keys are relative slash-separated paths such as
 * `2026/11/22/<random>.webp`. Implementations: local disk (`STORAGE=local`) and S3 (`STORAGE=s3`, s3-storage.ts),
 * which lets any instance serve any result.
 */
export interface ResultStorage {
  put(key: string, data: Buffer, mime: string): Promise<void>;
  /**
   * null when the key does not exist (deleted by retention, or never written). A returned `stream` holds an
   * open file or connection: pipe it out or destroy it. With `range`, only those bytes are returned.
   * @throws RangeNotSatisfiableError
   */
  get(key: string, range?: ByteRange): Promise<StoredObject | null>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
}

/** A storage key that is malformed or escapes the root: for a reader, the file does not exist. */
export class InvalidStorageKeyError extends DomainError {
  readonly code = 'invalid_storage_key';
}

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const META_SUFFIX = '.meta.json';

/** Refuses anything that could escape the storage root or collide with our metadata files. */
export function assertValidKey(key: string): void {
  const segments = key.split('/');
  const ok =
    key.length > 0 &&
    key.length <= 512 &&
    !key.endsWith(META_SUFFIX) &&
    segments.every((s) => SEGMENT.test(s) && s !== '.' && s !== '..' && !s.includes('..'));
  if (!ok) throw new InvalidStorageKeyError(`invalid storage key: ${JSON.stringify(key.slice(0, 100))}`);
}

/** `YYYY/MM/DD/<128-bit random>.<ext>` in UTC, unguessable so a result URL works as a capability. */
export function newResultKey(ext: string, now: Date = new Date()): string {
  if (!/^[a-z0-9]{1,8}$/.test(ext)) throw new InvalidStorageKeyError(`invalid extension: ${ext}`);
  const y = now.getUTCFullYear();
  const m = String(now.getUTCMonth() + 1).padStart(2, '0');
  const d = String(now.getUTCDate()).padStart(2, '0');
  return `${y}/${m}/${d}/${randomBytes(16).toString('base64url')}.${ext}`;
}

interface MetaFile {
  mime: string;
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

/** Files under `rootDir`, each with a small `<file>.meta.json` holding its media type. */
export class LocalDiskStorage implements ResultStorage {
  private readonly root: string;

  constructor(rootDir: string) {
    this.root = path.resolve(rootDir);
  }

  private pathFor(key: string): string {
    assertValidKey(key);
    const full = path.resolve(this.root, ...key.split('/'));
    // Belt and braces on top of the key grammar.
    if (!full.startsWith(this.root + path.sep)) throw new InvalidStorageKeyError(`key escapes the root: ${key}`);
    return full;
  }

  /** Writes to a temp file in the same directory, flushes it, then renames: readers never see a partial file. */
  private async writeAtomic(file: string, data: Buffer | string): Promise<void> {
    const temp = path.join(path.dirname(file), `.tmp-${randomBytes(8).toString('hex')}`);
    const handle = await fs.open(temp, 'wx');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fs.rename(temp, file);
    } catch (err) {
      await fs.rm(temp, { force: true });
      throw err;
    }
  }

  async put(key: string, data: Buffer, mime: string): Promise<void> {
    const file = this.pathFor(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Metadata first: a data file is only ever visible with its metadata already in place.
    await this.writeAtomic(file + META_SUFFIX, JSON.stringify({ mime } satisfies MetaFile));
    await this.writeAtomic(file, data);
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    const file = this.pathFor(key);
    let handle: fs.FileHandle;
    try {
      // Open before stat so a concurrent delete cannot leave us with a size but no file.
      handle = await fs.open(file, 'r');
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    try {
      const { size, mtimeMs } = await handle.stat();
      const mime = await this.readMime(file);
      const etag = `"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`;
      const span = range ? resolveRange(range, size) : undefined;
      const stream = handle.createReadStream({ autoClose: true, start: span?.start, end: span?.end });
      return { mime, size, etag, range: span, stream };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  private async readMime(file: string): Promise<string> {
    try {
      const meta = JSON.parse(await fs.readFile(file + META_SUFFIX, 'utf8')) as Partial<MetaFile>;
      if (typeof meta.mime === 'string') return meta.mime;
    } catch (err) {
      if (!isMissing(err) && !(err instanceof SyntaxError)) throw err;
    }
    return 'application/octet-stream';
  }

  async delete(key: string): Promise<void> {
    const file = this.pathFor(key);
    await fs.rm(file, { force: true });
    await fs.rm(file + META_SUFFIX, { force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await fs.stat(this.pathFor(key))).isFile();
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }
}

/** Reads a stored object fully into memory (for chaining a result into the next request), with a cap. */
export async function readStoredObject(obj: StoredObject, maxBytes: number): Promise<Buffer> {
  if (obj.size > maxBytes) {
    obj.stream?.destroy();
    throw new RangeError(`stored object of ${obj.size} bytes exceeds ${maxBytes}`);
  }
  if (obj.data) return obj.data;
  const chunks: Buffer[] = [];
  for await (const chunk of obj.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
