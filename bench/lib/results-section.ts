import fs from 'node:fs';

/**
 * bench/results.md is rewritten by `npm run bench`, but other benches keep a section of their own in it (issue 34:
 * "PostgreSQL restarts under load"). A section runs from its `## ` heading to the next one.
 */
export const GROWTH_HEADING = '## Flat as the data grows (`npm run bench:growth`)';
const KEPT_HEADINGS = ['## PostgreSQL restarts under load', GROWTH_HEADING];

const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

/** Where the section under `heading` starts and ends in `text`. */
function sectionBounds(text: string, heading: string): { start: number; end: number } | undefined {
  const start = text.split('\n').findIndex((line) => line === heading);
  if (start < 0) return undefined;
  const offset = text.split('\n').slice(0, start).join('\n').length + (start > 0 ? 1 : 0);
  const next = text.indexOf('\n## ', offset + heading.length);
  return { start: offset, end: next < 0 ? text.length : next + 1 };
}

/** The sections of other benches in the current file, to append to a rewritten one. */
export function keptSections(file: string): string {
  const text = read(file);
  return KEPT_HEADINGS.map((h) => sectionBounds(text, h))
    .filter((b) => b !== undefined)
    .map((b) => `\n${text.slice(b.start, b.end).trimEnd()}\n`)
    .join('');
}

/** Replaces (or appends) the section under `heading` with `body`. */
export function writeSection(file: string, heading: string, body: string): void {
  const text = read(file);
  const section = `${heading}\n\n${body.trim()}\n`;
  const b = sectionBounds(text, heading);
  const rest = b ? text.slice(b.end) : '';
  const next = b ? `${text.slice(0, b.start)}${section}${rest ? `\n${rest}` : ''}` : `${text.trimEnd()}\n\n${section}`;
  fs.writeFileSync(file, next);
}
