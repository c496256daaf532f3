/** The file name a result is saved under: `<model>-<id>` with the stored file's extension, or `.md` for text. */
export function downloadName(g: { id: number; model_slug: string }, url: string | null): string {
  const ext = url ? (/\.([a-z0-9]{2,5})(?:$|[?#])/i.exec(new URL(url, window.location.href).pathname)?.[1] ?? 'bin') : 'md';
  return `${g.model_slug}-${g.id}.${ext.toLowerCase()}`;
}

/** Saves text built in the page as a file (an object URL, released once the download has started). */
export function saveFile(name: string, text: string, type = 'text/markdown;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A result file's URL that saves it under `name` (the service answers `?download=` with Content-Disposition). */
export function downloadUrl(url: string, name: string): string {
  const u = new URL(url, window.location.href);
  u.searchParams.set('download', name);
  return u.toString();
}
