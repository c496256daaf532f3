/** A range of whole UTC days, as the usage API takes it (YYYY-MM-DD, both ends included). */
export interface DayRange {
  from: string;
  to: string;
}

const DAY_MS = 86_400_000;

export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The last `days` days, today (UTC) included. */
export function lastDays(days: number, now = new Date()): DayRange {
  return { from: isoDay(new Date(now.getTime() - (days - 1) * DAY_MS)), to: isoDay(now) };
}

/** How many days the range spans, both ends included; 0 when it is not a valid range. */
export function spanDays(range: DayRange): number {
  const from = Date.parse(`${range.from}T00:00:00Z`);
  const to = Date.parse(`${range.to}T00:00:00Z`);
  if (Number.isNaN(from) || Number.isNaN(to) || from > to) return 0;
  return Math.round((to - from) / DAY_MS) + 1;
}
