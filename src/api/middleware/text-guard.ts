/** Where a string is unusable: a NUL character or a lone UTF-16 surrogate (PostgreSQL and most clients reject both). */
export function isUnsafeText(value: string): boolean {
  return value.includes('\u0000') || !(value as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * The path of the first unusable string (object keys included) in a parsed JSON value, or null. Iterative, and
 * bounded by the depth the reader already enforced.
 */
export function findUnsafeText(value: unknown): string | null {
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
