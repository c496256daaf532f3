import { DomainError } from '../errors';

/** No stored response of this account has the id (another account's is not found either). */
export class ResponseNotFoundError extends DomainError {
  readonly code = 'response_not_found';
  constructor(readonly id: string) {
    super(`Response with id '${id}' not found.`, { id });
  }
}

/** The stored response cannot do what was asked (cancel one that did not run in the background). */
export class ResponseNotCancellableError extends DomainError {
  readonly code = 'response_not_cancellable';
  constructor(
    readonly id: string,
    message: string,
  ) {
    super(message, { id });
  }
}
