import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ParameterizedContext } from 'koa';
import { ApiError } from './errors';
import { isUnsafeText } from './text-guard';

export interface UploadedFile {
  data: Buffer;
  filename: string;
  declaredMime: string;
  size: number;
}

export interface MultipartForm {
  fields: Record<string, string>;
  files: Record<string, UploadedFile>;
}

interface FormidableFile {
  filepath: string;
  originalFilename?: string | null;
  mimetype?: string | null;
  size: number;
}

const tooLarge = (maxFileBytes: number) =>
  new ApiError(413, 'payload_too_large', `Uploaded file is larger than ${Math.round(maxFileBytes / 1024 / 1024)} MB`);

/** formidable's error codes (formidable/src/FormidableError.js) that we answer with something specific. */
const FORMIDABLE = {
  aborted: 1002,
  maxFieldsSizeExceeded: 1006,
  maxFieldsExceeded: 1007,
  biggerThanTotalMaxFileSize: 1009,
  noEmptyFiles: 1010,
  maxFilesExceeded: 1015,
  biggerThanMaxFileSize: 1016,
} as const;

/** The real reason a multipart body was refused: 413 only when a file is too large. */
function multipartError(err: Error & { code?: unknown }, maxFileBytes: number, fileFields: string[]): ApiError {
  switch (err.code) {
    case FORMIDABLE.biggerThanMaxFileSize:
    case FORMIDABLE.biggerThanTotalMaxFileSize:
      return tooLarge(maxFileBytes);
    case FORMIDABLE.maxFilesExceeded:
      return new ApiError(400, 'invalid_multipart', `Too many files: send at most ${fileFields.length} (${fileFields.join(', ')})`);
    case FORMIDABLE.maxFieldsExceeded:
      return new ApiError(400, 'invalid_multipart', 'Too many form fields');
    case FORMIDABLE.maxFieldsSizeExceeded:
      return new ApiError(400, 'invalid_multipart', 'The form fields are too long (64 kB in all)');
    case FORMIDABLE.noEmptyFiles:
      return new ApiError(400, 'invalid_multipart', 'An uploaded file is empty');
    case FORMIDABLE.aborted:
      return new ApiError(400, 'request_aborted', 'The upload was interrupted');
    default:
      return new ApiError(400, 'invalid_multipart', 'Malformed multipart body');
  }
}

/**
 * Parses a multipart/form-data request. Files stream to temporary files in a folder of their own (never held in
 * memory while the upload runs) and the upload is cut off past `maxFileBytes`: 413. A declared Content-Length
 * over the cap is refused before reading. Other failures say what was wrong (400). Accepted files are then read
 * (they are within the cap); the folder is removed whatever happened.
 */
export async function readMultipart(
  ctx: ParameterizedContext,
  opts: { maxFileBytes: number; fileFields: string[] },
): Promise<MultipartForm> {
  if (!ctx.is('multipart/form-data')) {
    throw new ApiError(415, 'unsupported_media_type', 'Send this request as multipart/form-data');
  }
  const declared = Number(ctx.get('Content-Length') || NaN);
  if (Number.isFinite(declared) && declared > opts.maxFileBytes * opts.fileFields.length + 1024 * 1024) {
    ctx.set('Connection', 'close');
    throw tooLarge(opts.maxFileBytes);
  }
  // Each request writes into its own folder, removed on every way out: success, refusal, overflow, abort.
  const uploadDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ng-upload-'));
  try {
    return await parseInto(ctx, uploadDir, opts);
  } finally {
    await fs.rm(uploadDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function parseInto(
  ctx: ParameterizedContext,
  uploadDir: string,
  opts: { maxFileBytes: number; fileFields: string[] },
): Promise<MultipartForm> {
  let failure: ApiError | undefined;
  // koa-body (and formidable under it) loads on the first upload: a process that serves no upload keeps neither.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a deferred load
  const { koaBody } = require('koa-body') as typeof import('koa-body');
  const parse = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    formidable: {
      uploadDir,
      maxFileSize: opts.maxFileBytes,
      maxFiles: opts.fileFields.length,
      maxFields: 20,
      maxFieldsSize: 64 * 1024,
      allowEmptyFiles: false,
    },
    onError: (err: Error) => {
      failure = multipartError(err, opts.maxFileBytes, opts.fileFields);
      if (failure.status === 413) ctx.set('Connection', 'close');
      throw failure;
    },
  });
  try {
    await parse(ctx as never, async () => undefined);
  } catch (err) {
    throw failure ?? err;
  }
  const rawFiles = (ctx.request as unknown as { files?: Record<string, FormidableFile | FormidableFile[]> }).files ?? {};
  const rawFields = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
  const files: Record<string, UploadedFile> = {};
  for (const [name, value] of Object.entries(rawFiles)) {
    const file = Array.isArray(value) ? value[0] : value;
    if (!opts.fileFields.includes(name) || !file) continue;
    files[name] = {
      data: await fs.readFile(file.filepath),
      filename: file.originalFilename ?? name,
      declaredMime: file.mimetype ?? 'application/octet-stream',
      size: file.size,
    };
  }
  const fields = Object.fromEntries(Object.entries(rawFields).map(([k, v]) => [k, Array.isArray(v) ? String(v[0]) : String(v)]));
  for (const [name, value] of Object.entries(fields)) {
    if (isUnsafeText(name) || isUnsafeText(value)) {
      throw new ApiError(400, 'invalid_input', `${name}: text must not contain NUL characters or unpaired surrogates`, { field: name });
    }
  }
  return { fields, files };
}
