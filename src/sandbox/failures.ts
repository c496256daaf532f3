import type { ServerResponse } from 'node:http';

/**
 * `[[fail:<kind>]]` in a prompt (or another text the fake sees) asks a vendor fake to fail the way that vendor
 * does. Each fake names the kinds it knows; others are ignored.
 */
export function failureMarkerIn<K extends string>(text: string | undefined, kinds: readonly K[]): K | undefined {
  const match = /\[\[fail:([a-z_-]+)\]\]/.exec(text ?? '');
  return match && (kinds as readonly string[]).includes(match[1]) ? (match[1] as K) : undefined;
}

/** Keeps the request open without answering until the client gives up: a vendor slower than any sane timeout. */
export function hangUntilClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) resolve();
    else res.once('close', () => resolve());
  });
}
