import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ParameterizedContext } from 'koa';
import { ApiError } from './errors';
import { isUnsafeText } from './text-guard';
import { refuseUnreadBody } from './unread-body';
import { decodeUtf8 } from './utf8';

export interface UploadedFile {
  data: Buffer;
  filename: string;
  declaredMime: string;
  size: number;
}

export interface MultipartForm {
  /** The first value of each text field. */
  fields: Record<string, string>;
  /** Every value of each text field, in the order sent (`timestamp_granularities[]` may repeat). */
  fieldLists: Record<string, string[]>;
  /** The first file of each accepted field. */
  files: Record<string, UploadedFile>;
  /** Every file of each accepted field, in the order sent (`image[]` may carry several). */
  fileLists: Record<string, UploadedFile[]>;
}

export interface MultipartOptions {
  maxFileBytes: number;
  fileFields: string[];
  /** How many files the form may carry in all (default: one per file field). */
  maxFiles?: number;
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
function multipartError(err: Error & { code?: unknown }, maxFileBytes: number, fileFields: string[], maxFiles: number): ApiError {
  switch (err.code) {
    case FORMIDABLE.biggerThanMaxFileSize:
    case FORMIDABLE.biggerThanTotalMaxFileSize:
      return tooLarge(maxFileBytes);
    case FORMIDABLE.maxFilesExceeded:
      return new ApiError(400, 'invalid_multipart', `Too many files: send at most ${maxFiles} (${fileFields.join(', ')})`);
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
export async function readMultipart(ctx: ParameterizedContext, opts: MultipartOptions): Promise<MultipartForm> {
  if (!ctx.is('multipart/form-data')) {
    throw refuseUnreadBody(ctx, new ApiError(415, 'unsupported_media_type', 'Send this request as multipart/form-data'));
  }
  const declared = Number(ctx.get('Content-Length') || NaN);
  if (Number.isFinite(declared) && declared > opts.maxFileBytes * (opts.maxFiles ?? opts.fileFields.length) + 1024 * 1024) {
    throw refuseUnreadBody(ctx, tooLarge(opts.maxFileBytes));
  }
  // Each request writes into its own folder, removed on every way out: success, refusal, overflow, abort.
  const uploadDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ng-upload-'));
  try {
    return await parseInto(ctx, uploadDir, opts);
  } finally {
    await fs.rm(uploadDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** A name or value formidable read as latin1 (one character per byte), as UTF-8 text. @throws 400 invalid_input */
function strictText(latin1: string, field: string): string {
  const text = decodeUtf8(Buffer.from(latin1, 'latin1'));
  if (text === null) throw new ApiError(400, 'invalid_input', `${field}: text must be valid UTF-8`, { field });
  return text;
}

async function parseInto(ctx: ParameterizedContext, uploadDir: string, opts: MultipartOptions): Promise<MultipartForm> {
  const maxFiles = opts.maxFiles ?? opts.fileFields.length;
  // formidable loads on the first upload: a process that serves no upload keeps none of it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a deferred load
  const { formidable } = require('formidable') as typeof import('formidable');
  const form = formidable({
    uploadDir,
    maxFileSize: opts.maxFileBytes,
    maxFiles,
    maxFields: 20,
    maxFieldsSize: 64 * 1024,
    allowEmptyFiles: false,
    // Byte for byte (latin1): names and values are decoded below, strictly (formidable's UTF-8 substitutes U+FFFD).
    encoding: 'binary',
  });
  // formidable undoes a part's Content-Transfer-Encoding (base64) and then decodes a field with the encoding's name
  // as a character set: "7bit" or "8bit" threw out of its stream handler, an unhandled rejection that ended the
  // process. The field's bytes are taken as they are instead.
  const handlePart = form.onPart.bind(form);
  form.onPart = (part) => {
    (part as typeof part & { transferEncoding?: string }).transferEncoding = 'binary';
    return handlePart(part);
  };
  let rawFields: Record<string, string[] | undefined>;
  let rawFiles: Record<string, FormidableFile[] | undefined>;
  try {
    [rawFields, rawFiles] = await form.parse(ctx.req);
  } catch (err) {
    // The client may still be sending (a file over the cap): it gets the answer, then the rest is read and dropped.
    throw refuseUnreadBody(ctx, multipartError(err as Error & { code?: unknown }, opts.maxFileBytes, opts.fileFields, maxFiles));
  }
  const fileLists: Record<string, UploadedFile[]> = {};
  for (const [name, value] of Object.entries(rawFiles)) {
    if (!opts.fileFields.includes(name) || !value?.length) continue;
    fileLists[name] = [];
    for (const file of value) {
      fileLists[name].push({
        data: await fs.readFile(file.filepath),
        filename: file.originalFilename ? strictText(file.originalFilename, name) : name,
        declaredMime: file.mimetype ?? 'application/octet-stream',
        size: file.size,
      });
    }
  }
  const files = Object.fromEntries(Object.entries(fileLists).map(([name, list]) => [name, list[0]!]));
  const fieldLists = Object.fromEntries(
    Object.entries(rawFields).map(([k, v]) => {
      const name = strictText(k, 'form');
      return [name, (v?.length ? v : ['']).map((value) => strictText(value, name))];
    }),
  );
  const fields = Object.fromEntries(Object.entries(fieldLists).map(([name, values]) => [name, values[0]!]));
  for (const [name, value] of Object.entries(fields)) {
    if (isUnsafeText(name) || isUnsafeText(value)) {
      throw new ApiError(400, 'invalid_input', `${name}: text must not contain NUL characters or unpaired surrogates`, { field: name });
    }
  }
  for (const values of Object.values(fieldLists)) {
    for (const value of values.slice(1)) {
      if (isUnsafeText(value))
        throw new ApiError(400, 'invalid_input', 'form: text must not contain NUL characters or unpaired surrogates');
    }
  }
  return { fields, fieldLists, files, fileLists };
}
