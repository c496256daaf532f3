/** Geometry of a stacked bar chart: one bar per day, one segment per category. */
export interface ChartSegment {
  category: string;
  y: number;
  height: number;
  value: number;
}

export interface ChartBar {
  label: string;
  x: number;
  width: number;
  total: number;
  segments: ChartSegment[];
}

export interface ChartInput {
  label: string;
  values: Record<string, number>;
}

/** A round axis maximum at or above `max` (1, 2, 5 times a power of ten). */
export function niceCeiling(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/** Bars laid out left to right in a `width` x `height` box, segments stacked from the bottom in `order`. */
export function stackBars(days: ChartInput[], order: readonly string[], width: number, height: number): { bars: ChartBar[]; max: number } {
  const totals = days.map((d) => order.reduce((sum, c) => sum + (d.values[c] ?? 0), 0));
  const max = niceCeiling(Math.max(0, ...totals));
  const slot = days.length > 0 ? width / days.length : width;
  const gap = Math.min(2, slot * 0.2);
  const bars = days.map((day, i) => {
    let bottom = height;
    const segments: ChartSegment[] = [];
    for (const category of order) {
      const value = day.values[category] ?? 0;
      if (value <= 0) continue;
      const h = (value / max) * height;
      bottom -= h;
      segments.push({ category, y: bottom, height: h, value });
    }
    return { label: day.label, x: i * slot + gap / 2, width: slot - gap, total: totals[i] ?? 0, segments };
  });
  return { bars, max };
}
