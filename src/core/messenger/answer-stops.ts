import type { DataSource } from 'typeorm';
import type { ChangeChannelListener } from '../catalog/live/changes';

/** The NOTIFY channel of stop requests for messenger answers (every instance listens). */
export const ANSWER_STOPS_CHANNEL = 'answer_stops';

/** A user's request to stop an answer that is being written: by the draft Telegram names, by the answer, or all of theirs. */
export type AnswerStop =
  | { kind: 'draft'; chatId: number; threadId?: number; draftId: number }
  | { kind: 'answer'; answerId: string; userId: number }
  | { kind: 'user'; chatId: number; threadId?: number; userId: number };

export type AnswerStopListener = (stop: AnswerStop) => void;

/**
 * Stop requests travel to every instance: in webhook mode the stop may reach another instance than the one writing
 * the answer. Published with pg_notify and heard on the shared LISTEN connection (PgAccountChangeFeed.listen); the
 * instance that runs the answer aborts its vendor call, the others find nothing to stop.
 */
export class AnswerStops implements ChangeChannelListener {
  private readonly listeners: AnswerStopListener[] = [];

  constructor(private readonly ds: DataSource) {}

  /** Hears every stop; the returned function stops listening (a bot that shuts down). */
  onStop(listener: AnswerStopListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Tells every instance (this one too, through the channel). */
  async publish(stop: AnswerStop): Promise<void> {
    await this.ds.query('SELECT pg_notify($1, $2)', [ANSWER_STOPS_CHANNEL, JSON.stringify(stop)]);
  }

  heard(payload: string): void {
    let stop: AnswerStop;
    try {
      stop = JSON.parse(payload) as AnswerStop;
    } catch {
      return;
    }
    for (const listener of this.listeners) listener(stop);
  }

  /** Stops missed while not listening concerned answers that have long ended or been stopped here. */
  reset(): void {}
}
