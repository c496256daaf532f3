import { InputFile } from '../types';

/** Replicate takes file inputs as HTTP URLs or data URIs; we send the bytes we already hold as data URIs. */
export function toDataUri(file: InputFile): string {
  return `data:${file.mime};base64,${file.data.toString('base64')}`;
}

/** Decodes a `data:<mime>;base64,...` output (cog returns these when it has nowhere to upload a file). */
export function fromDataUri(uri: string): InputFile | undefined {
  const m = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(uri);
  if (!m) return undefined;
  const data = m[2] ? Buffer.from(m[3], 'base64') : Buffer.from(decodeURIComponent(m[3]), 'utf8');
  return { data, mime: m[1] || 'application/octet-stream' };
}
