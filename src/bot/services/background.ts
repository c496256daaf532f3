import type { Logger } from '../../logger';

/**
 * Work the bot starts after answering an update (a generation that may take a minute), so the chat's update
 * queue is not held up. Failures are logged; `drain()` waits for everything started so far (shutdown, tests).
 */
export class BackgroundTasks {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly log: Logger) {}

  run(name: string, task: () => Promise<void>): void {
    const p: Promise<void> = Promise.resolve()
      .then(task)
      .catch((err: unknown) => this.log.error({ err, task: name }, 'bot background task failed'))
      .finally(() => this.running.delete(p));
    this.running.add(p);
  }

  get size(): number {
    return this.running.size;
  }

  async drain(timeoutMs = 60_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.running.size > 0 && Date.now() < until) {
      await Promise.race([Promise.allSettled([...this.running]), new Promise((r) => setTimeout(r, Math.max(1, until - Date.now())))]);
    }
  }
}
