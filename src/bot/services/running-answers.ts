import crypto from 'node:crypto';
import type { AnswerStop, AnswerStops } from '../../core/messenger/answer-stops';
import type { Logger } from '../../logger';

/** Where an answer is written and for whom. */
export interface AnswerPlace {
  chatId: number;
  /** The topic (forum topic, or a topic of a private chat) the answer goes to. */
  threadId?: number;
  /** The Telegram user who asked: only they may stop it. */
  userId: number;
}

/** An answer being written: its stop signal, and the draft Telegram shows for it (private chats). */
export interface RunningAnswer extends AnswerPlace {
  /** Short id for the Stop button's data. */
  id: string;
  draftId?: number;
  /** Aborted when the user stops the answer: the vendor call ends with it. */
  signal: AbortSignal;
  readonly stopped: boolean;
  /** The answer is complete (or failed): stops no longer apply. */
  done(): void;
}

function matches(answer: RunningAnswer, stop: AnswerStop): boolean {
  switch (stop.kind) {
    case 'draft':
      return answer.chatId === stop.chatId && answer.draftId === stop.draftId && (answer.threadId ?? 0) === (stop.threadId ?? 0);
    case 'answer':
      return answer.id === stop.answerId && answer.userId === stop.userId;
    case 'user':
      return answer.chatId === stop.chatId && answer.userId === stop.userId && (answer.threadId ?? 0) === (stop.threadId ?? 0);
  }
}

/**
 * The chat answers this bot process is writing, so a stop (Telegram's stop button on a draft, the Stop button, or
 * /stop) can end one: locally at once, and on every other instance through `AnswerStops`, since in webhook mode the
 * stop may arrive at another instance. A stop matches only an answer of the user who sent it.
 */
export class RunningAnswers {
  private readonly answers = new Set<RunningAnswer & { abort: AbortController }>();

  constructor(
    private readonly stops: Pick<AnswerStops, 'publish' | 'onStop'>,
    private readonly log: Logger,
  ) {}

  /** Hears the stops every instance publishes (from `attach` until the returned function is called). */
  listen(): () => void {
    return this.stops.onStop((stop) => this.stopHere(stop));
  }

  begin(place: AnswerPlace, draftId?: number): RunningAnswer {
    const abort = new AbortController();
    const answers = this.answers;
    const answer = {
      ...place,
      id: crypto.randomBytes(6).toString('base64url'),
      draftId,
      abort,
      signal: abort.signal,
      get stopped() {
        return abort.signal.aborted;
      },
      done() {
        answers.delete(answer);
      },
    };
    this.answers.add(answer);
    return answer;
  }

  /** Stops matching answers here and asks the other instances to do the same; the number stopped here. */
  stop(stop: AnswerStop): number {
    const here = this.stopHere(stop);
    this.stops.publish(stop).catch((err: unknown) => this.log.warn({ err }, 'answer stop not published to other instances'));
    return here;
  }

  /** The answer runs here for another user (a group member pressed someone else's Stop button). */
  ownedByOther(answerId: string, userId: number): boolean {
    return [...this.answers].some((a) => a.id === answerId && a.userId !== userId);
  }

  private stopHere(stop: AnswerStop): number {
    let n = 0;
    for (const answer of this.answers) {
      if (!matches(answer, stop) || answer.abort.signal.aborted) continue;
      answer.abort.abort();
      n++;
    }
    return n;
  }
}
