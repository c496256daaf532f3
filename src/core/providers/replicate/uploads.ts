import { z } from 'zod';
import { upstreamJson } from '../http';
import { InputFile, MediaRequest, ProviderConnection, ProviderError } from '../types';
import { inputFilesOf } from '../slug-requests';
import { toDataUri } from './data-uri';
import { extensionOf } from '../../media/mime';

/**
 * Replicate takes input files inline as data URIs only up to 10 MB in all (the official client refuses more);
 * larger inputs go through its files API (`POST /v1/files`, multipart field `content`) and are passed by the
 * returned `urls.get`.
 */
export const MAX_INLINE_BYTES = 10_000_000;

/** How a model's input refers to one of the request's files. */
export type FileRef = (file: InputFile) => string;

const uploadedFile = z.object({ id: z.string(), urls: z.object({ get: z.string() }) });

async function upload(file: InputFile, conn: ProviderConnection, signal?: AbortSignal): Promise<string> {
  const form = new FormData();
  const name = file.filename ?? `input.${extensionOf(file.mime)}`;
  form.append('content', new Blob([new Uint8Array(file.data)], { type: file.mime }), name);
  form.append('metadata', new Blob(['{}'], { type: 'application/json' }));
  const raw = await upstreamJson<unknown>('replicate', conn, {
    method: 'POST',
    path: '/files',
    headers: { authorization: `Bearer ${conn.apiKey}` },
    body: form,
    signal,
  });
  const parsed = uploadedFile.safeParse(raw);
  if (!parsed.success) throw new ProviderError('upstream', 'replicate answered the file upload without urls.get', 'replicate');
  return parsed.data.urls.get;
}

/** Inline data URIs while the request's files fit in 10 MB together; uploads otherwise. */
export async function fileRefs(req: MediaRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<FileRef> {
  const files = inputFilesOf(req);
  const total = files.reduce((sum, f) => sum + f.data.length, 0);
  if (total <= MAX_INLINE_BYTES) return toDataUri;
  const urls = new Map<InputFile, string>();
  for (const file of files) urls.set(file, await upload(file, conn, signal));
  return (file) => urls.get(file) ?? toDataUri(file);
}
