import { DomainError } from '../errors';

/** A broadcast that has finished or was canceled cannot be canceled. */
export class BroadcastFinishedError extends DomainError {
  readonly code = 'broadcast_finished';
  constructor(readonly status: string) {
    super(`The broadcast is ${status}: there is nothing left to cancel.`, { status });
  }
}
