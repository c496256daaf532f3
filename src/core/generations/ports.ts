import type { GenerationRecord } from '../records';

/** Durable work queue for pending generations (implemented with pg-boss in src/jobs). */
export interface GenerationQueue {
  /** Schedules one step of the generation's run, after `delayMs`. */
  enqueue(generationId: number, delayMs?: number): Promise<void>;
}

/** How the core announces finished generations: the bot delivers results, admins hear of outages. */
export interface GenerationNotifier {
  generationFinished(generation: GenerationRecord): Promise<void>;
}

export class NotifierHub implements GenerationNotifier {
  private readonly listeners: GenerationNotifier[] = [];

  add(listener: GenerationNotifier): void {
    this.listeners.push(listener);
  }

  async generationFinished(generation: GenerationRecord): Promise<void> {
    await Promise.allSettled(this.listeners.map((l) => l.generationFinished(generation)));
  }
}
