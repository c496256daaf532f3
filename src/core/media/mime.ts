/** The one table of media types we store, send or upload, and the file extension each goes by. */
const EXTENSION_BY_MIME: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/webm': 'webm',
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'audio/aac': 'aac',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/m4a': 'm4a',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
  'application/pdf': 'pdf',
};

/** For each extension, the canonical type (the first one listed above). */
const MIME_BY_EXTENSION: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(EXTENSION_BY_MIME)
    .reverse()
    .map(([mime, ext]) => [ext, mime]),
);

function bareType(mime: string): string {
  return mime.split(';')[0].trim().toLowerCase();
}

/** The extension of a media type (parameters such as `; codecs=` ignored), or `fallback` for one we don't know. */
export function extensionOf(mime: string, fallback = 'bin'): string {
  return EXTENSION_BY_MIME[bareType(mime)] ?? fallback;
}

/** The media type of a file extension (`jpeg` counts as `jpg`), or undefined. */
export function mimeOfExtension(ext: string): string | undefined {
  const e = ext.toLowerCase();
  return MIME_BY_EXTENSION[e === 'jpeg' ? 'jpg' : e];
}
