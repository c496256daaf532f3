import { MAX_PROMPT_LENGTH } from './limits';
import type { TtsModel } from './types';

/**
 * The longest text each vendor's speech model takes in one request, in characters, as its vendor documents it
 * (Gemini TTS: 8,192 input tokens, counted as as many characters, since a token is rarely shorter than one;
 * ElevenLabs: 10,000 for Multilingual v2, 40,000 for Flash v2.5, 5,000 for v3). Not published in the model's
 * `config`: callers ask speechInputLimit.
 */
const VENDOR_MAX_INPUT: Readonly<Record<string, number>> = {
  'gemini-3.8-flash-lite-tts': 8192,
  'gemini-3.8-flash-tts': 8192,
  eleven_multilingual_v2: 10_000,
  eleven_flash_v2_5: 40_000,
  eleven_v3: 5_000,
};

/** How much text one request to a speech model may carry: the vendor's limit, within the service's prompt limit. */
export function speechInputLimit(model: TtsModel): number {
  return Math.min(MAX_PROMPT_LENGTH, VENDOR_MAX_INPUT[model.upstreamModel] ?? MAX_PROMPT_LENGTH);
}

/**
 * The first part of `text` that fits `limit` characters (code points), cut after the last sentence that ends
 * within it; failing that after the last word; failing that at the limit. `cut` says whether anything was left out.
 */
export function speakablePart(text: string, limit: number): { text: string; cut: boolean } {
  const chars = [...text.trim()];
  if (chars.length <= limit) return { text: chars.join(''), cut: false };
  const head = chars.slice(0, limit).join('');
  // A sentence ends at . ! ? … (with closing quotes or brackets) followed by white space, or at a line break.
  const sentence = /[.!?…]["'»”)\]]*(?=\s)|\n/g;
  let end = -1;
  for (let m = sentence.exec(head); m; m = sentence.exec(head)) end = m.index + m[0].length;
  if (end <= 0) end = head.search(/\s\S*$/);
  return { text: (end > 0 ? head.slice(0, end) : head).trim(), cut: true };
}
