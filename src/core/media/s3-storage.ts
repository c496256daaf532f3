import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { assertValidKey, ByteRange, RangeNotSatisfiableError, resolveRange, ResultStorage, StoredObject } from './storage';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

function isMissing(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata.httpStatusCode === 404);
}

function rangeHeader(range: ByteRange): string {
  return 'suffix' in range ? `bytes=-${range.suffix}` : `bytes=${range.start}-${range.end ?? ''}`;
}

/** `bytes 0-99/1234` */
function parseContentRange(value: string | undefined): { start: number; end: number; size: number } | undefined {
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(value ?? '');
  return m ? { start: Number(m[1]), end: Number(m[2]), size: Number(m[3]) } : undefined;
}

/** Results and job inputs in one S3 (or S3-compatible) bucket, so every instance reads what any instance wrote. */
export class S3Storage implements ResultStorage {
  private readonly client: S3Client;

  constructor(private readonly options: S3StorageOptions) {
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials:
        options.accessKeyId && options.secretAccessKey
          ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
          : undefined,
      maxAttempts: 3,
    });
  }

  async put(key: string, data: Buffer, mime: string): Promise<void> {
    assertValidKey(key);
    await this.client.send(new PutObjectCommand({ Bucket: this.options.bucket, Key: key, Body: data, ContentType: mime }));
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    assertValidKey(key);
    if (range && 'suffix' in range) {
      // Not every S3-compatible server resolves `bytes=-n`: ask for explicit positions.
      const size = await this.size(key);
      if (size === null) return null;
      range = resolveRange(range, size);
    }
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.options.bucket, Key: key, Range: range ? rangeHeader(range) : undefined }),
      );
      const span = parseContentRange(out.ContentRange);
      const size = span?.size ?? out.ContentLength ?? 0;
      return {
        mime: out.ContentType ?? 'application/octet-stream',
        size,
        etag: out.ETag,
        range: range && span ? { start: span.start, end: span.end } : undefined,
        stream: out.Body as Readable,
      };
    } catch (err) {
      if (isMissing(err)) return null;
      if (err instanceof S3ServiceException && (err.name === 'InvalidRange' || err.$metadata.httpStatusCode === 416)) {
        throw new RangeNotSatisfiableError((await this.size(key)) ?? 0);
      }
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
  }

  async exists(key: string): Promise<boolean> {
    assertValidKey(key);
    return (await this.size(key)) !== null;
  }

  private async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }
}
