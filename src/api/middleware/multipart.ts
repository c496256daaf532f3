import fs from 'node:fs/promises';
import os from 'node:os';
import type { ParameterizedContext } from 'koa';
import { koaBody } from 'koa-body';
import { ApiError } from './errors';

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

/**
 * Parses a multipart/form-data request. Files stream to temporary files (never held in memory while the upload
 * runs) and the upload is cut off past `maxFileBytes`: 413. A declared Content-Length over the cap is refused
 * before reading. Accepted files are then read (they are within the cap) and their temporary files removed.
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
  const parse = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    formidable: {
      uploadDir: os.tmpdir(),
      maxFileSize: opts.maxFileBytes,
      maxFiles: opts.fileFields.length,
      maxFields: 20,
      maxFieldsSize: 64 * 1024,
      allowEmptyFiles: false,
    },
    onError: (err: Error) => {
      const e = err as Error & { httpCode?: number; code?: number };
      if (e.httpCode === 413 || /maxFileSize|maxTotalFileSize|exceeded/i.test(e.message)) {
        ctx.set('Connection', 'close');
        throw tooLarge(opts.maxFileBytes);
      }
      throw new ApiError(400, 'invalid_multipart', `Malformed multipart body: ${e.message}`);
    },
  });
  await parse(ctx as never, async () => undefined);
  const rawFiles = (ctx.request as unknown as { files?: Record<string, FormidableFile | FormidableFile[]> }).files ?? {};
  const rawFields = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
  const files: Record<string, UploadedFile> = {};
  try {
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
  } finally {
    for (const value of Object.values(rawFiles)) {
      for (const f of Array.isArray(value) ? value : [value]) await fs.rm(f.filepath, { force: true }).catch(() => undefined);
    }
  }
  const fields = Object.fromEntries(Object.entries(rawFields).map(([k, v]) => [k, Array.isArray(v) ? String(v[0]) : String(v)]));
  return { fields, files };
}
