/** The hourly and daily request limits as the API reports them in its X-RateLimit-* headers. */
export interface RateLimitState {
  limitHour: number;
  remainingHour: number;
  limitDay: number;
  remainingDay: number;
  /** Unix seconds when the hourly window resets. */
  resetHour: number | null;
}

interface HeaderSource {
  get(name: string): string | null;
}

function intHeader(headers: HeaderSource, name: string): number | null {
  const raw = headers.get(name);
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw);
}

/** Null when the answer carried no rate-limit headers (sign-in, public routes). */
export function readRateLimit(headers: HeaderSource): RateLimitState | null {
  const limitHour = intHeader(headers, 'X-RateLimit-Limit-Hour');
  const remainingHour = intHeader(headers, 'X-RateLimit-Remaining-Hour');
  const limitDay = intHeader(headers, 'X-RateLimit-Limit-Day');
  const remainingDay = intHeader(headers, 'X-RateLimit-Remaining-Day');
  if (limitHour === null || remainingHour === null || limitDay === null || remainingDay === null) return null;
  return { limitHour, remainingHour, limitDay, remainingDay, resetHour: intHeader(headers, 'X-RateLimit-Reset-Hour') };
}

/** A limit of 0 means unlimited (Elite). */
export function isUnlimited(limit: number): boolean {
  return limit === 0;
}
