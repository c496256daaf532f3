import { z } from 'zod';

/**
 * The error of a tagged union whose tag is not one this server reads: names the value, so a client learns which
 * part or item type to drop (the path already names where it is).
 */
export function unsupportedTag(what: string) {
  return {
    error: (issue: { note?: string; input?: unknown }) => {
      if (issue.note !== 'No matching discriminator') return undefined;
      const tag = (issue.input as { type?: unknown } | null)?.type;
      return `${what} type ${JSON.stringify(tag ?? null)} is not supported by this server`;
    },
  };
}

/** A tool name as every vendor of the catalog accepts it. */
export const functionName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'function names are 1-64 letters, digits, _ or -');
