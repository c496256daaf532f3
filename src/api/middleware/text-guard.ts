/** Where a string is unusable: a NUL character or a lone UTF-16 surrogate (PostgreSQL and most clients reject both). */
export function isUnsafeText(value: string): boolean {
  return value.includes('\u0000') || !(value as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Whether any string of a parsed JSON value (object keys included) is unusable: one pass, no paths built. */
function hasUnsafeText(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (isUnsafeText(v)) return true;
    } else if (Array.isArray(v)) {
      for (const child of v) stack.push(child);
    } else if (v !== null && typeof v === 'object') {
      for (const key in v) {
        if (isUnsafeText(key)) return true;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/**
 * The path of the first unusable string (object keys included) in a parsed JSON value, or null. Iterative, and
 * bounded by the depth the reader already enforced; paths are built only when there is something to name (a
 * large body's check is then one cheap walk).
 */
export function findUnsafeText(value: unknown): string | null {
  if (!hasUnsafeText(value)) return null;
  const stack: { value: unknown; path: string }[] = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (isUnsafeText(v)) return path || 'body';
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: path ? `${path}.${i}` : String(i) });
    } else if (v !== null && typeof v === 'object') {
      for (const [key, child] of Object.entries(v)) {
        const childPath = path ? `${path}.${key}` : key;
        if (isUnsafeText(key)) return childPath;
        stack.push({ value: child, path: childPath });
      }
    }
  }
  return null;
}
