/** Width/height ratio of `1024x1536` or `16:9`; undefined for anything else. */
export function aspectOf(size: string): { ratio: number; area?: number } | undefined {
  const dims = /^(\d+)x(\d+)$/.exec(size);
  if (dims) {
    const w = Number(dims[1]);
    const h = Number(dims[2]);
    return w > 0 && h > 0 ? { ratio: w / h, area: w * h } : undefined;
  }
  const ratio = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(size);
  if (ratio) {
    const w = Number(ratio[1]);
    const h = Number(ratio[2]);
    return w > 0 && h > 0 ? { ratio: w / h } : undefined;
  }
  return undefined;
}

/**
 * The vendor size closest in shape to the requested one (then closest in area). Our sharp
 * post-processing resizes the result to the exact requested size afterwards.
 */
export function nearestSize(requested: string | undefined, supported: readonly string[]): string {
  if (requested && supported.includes(requested)) return requested;
  const want = requested ? aspectOf(requested) : undefined;
  if (!want) return supported[0];
  let best = supported[0];
  let bestScore = Number.POSITIVE_INFINITY;
  for (const candidate of supported) {
    const have = aspectOf(candidate);
    if (!have) continue;
    const shape = Math.abs(Math.log(have.ratio / want.ratio));
    const area = want.area && have.area ? Math.abs(Math.log(have.area / want.area)) : 0;
    const score = shape * 1000 + area;
    if (score < bestScore) {
      bestScore = score;
      best = candidate;
    }
  }
  return best;
}
