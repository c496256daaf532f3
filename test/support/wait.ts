/** Polls `check` until it returns a value other than undefined; fails with `what` after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until `predicate` holds (polled); fails with `what` after `timeoutMs`. */
export async function waitUntil(predicate: () => Promise<boolean> | boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  await eventually(async () => ((await predicate()) ? true : undefined), timeoutMs, what);
}

/** Retries `assertion` until it passes (the state it checks was reached); rethrows its last failure after `timeoutMs`. */
export async function untilPasses(assertion: () => unknown, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await eventually(async () => {
    try {
      await assertion();
      return true;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      return undefined;
    }
  }, timeoutMs * 2);
}
