/** Aspect ratios each Google image/video model accepts, as documented. */
export const GEMINI_IMAGE_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];
export const VIDEO_RATIOS = ['16:9', '9:16'];

function ratioValue(size: string): number | undefined {
  const m = /^(\d+)\s*[:x]\s*(\d+)$/.exec(size.trim());
  if (!m) return undefined;
  const w = Number(m[1]);
  const h = Number(m[2]);
  return w > 0 && h > 0 ? w / h : undefined;
}

/**
 * Our `size` (an aspect ratio such as `2:3`, or `WxH`) as the closest ratio the model accepts; the media
 * post-processing crops to the requested shape.
 */
export function nearestRatio(size: string | undefined, supported: string[]): string | undefined {
  if (!size) return undefined;
  if (supported.includes(size)) return size;
  const want = ratioValue(size);
  if (want === undefined) return undefined;
  let best = supported[0];
  let bestDistance = Infinity;
  for (const candidate of supported) {
    const distance = Math.abs(Math.log(ratioValue(candidate)! / want));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
