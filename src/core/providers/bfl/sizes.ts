/** Width/height and aspect-ratio mapping for the FLUX endpoints. */

const MIN_SIDE = 256;
const MAX_SIDE = 1440;
const STEP = 32;

export interface Dimensions {
  width: number;
  height: number;
}

/** `1024x1536` -> {1024, 1536}; an aspect ratio such as `16:9` -> a ~1 MP size of that shape. */
export function parseSize(size: string | undefined): Dimensions {
  const dims = /^(\d+)x(\d+)$/.exec(size ?? '');
  if (dims) return { width: Number(dims[1]), height: Number(dims[2]) };
  const ratio = /^(\d+):(\d+)$/.exec(size ?? '');
  if (ratio) {
    const r = Number(ratio[1]) / Number(ratio[2]);
    const height = Math.sqrt((1024 * 1024) / r);
    return { width: Math.round(height * r), height: Math.round(height) };
  }
  return { width: 1024, height: 1024 };
}

/**
 * FLUX.1 [dev] and FLUX1.1 [pro] take width/height in 256..1440, multiples of 32. Sizes outside that box
 * (1536x1024 of size set B) are scaled down keeping the shape; our sharp post-processing resizes the result
 * back to the size the user asked for.
 */
export function fitToFluxBox(size: string | undefined): Dimensions {
  const { width, height } = parseSize(size);
  const scale = Math.min(1, MAX_SIDE / Math.max(width, height));
  const fit = (side: number) => Math.min(MAX_SIDE, Math.max(MIN_SIDE, Math.round((side * scale) / STEP) * STEP));
  return { width: fit(width), height: fit(height) };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The `aspect_ratio` string the Ultra and Kontext endpoints take: `16:9` stays, `1024x1024` becomes `1:1`. */
export function aspectRatioOf(size: string | undefined): string {
  if (/^\d+:\d+$/.test(size ?? '')) return size as string;
  const dims = /^(\d+)x(\d+)$/.exec(size ?? '');
  if (!dims) return '1:1';
  const w = Number(dims[1]);
  const h = Number(dims[2]);
  const d = gcd(w, h);
  return `${w / d}:${h / d}`;
}
