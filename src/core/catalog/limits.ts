// Request limits the spec leaves open ("Maximum prompt length ... not shown"); chosen here, in one place.

/** Longest accepted `prompt` / `negative_prompt`, in characters (Unicode code points). */
export const MAX_PROMPT_LENGTH = 4000;

/** Seeds are passed to vendors that take a signed 32-bit integer. */
export const MAX_SEED = 2_147_483_647;

/** Counts Unicode code points, so an emoji or a CJK character is one character. */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
