/** Calls `check` every `intervalMs` until it says done or `signal` aborts. */
export async function pollUntil(check: () => Promise<boolean>, intervalMs: number, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    if (signal.aborted) return;
    if (await check()) return;
  }
}
