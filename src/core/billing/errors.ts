import { DomainError } from '../errors';

export class InsufficientTokensError extends DomainError {
  readonly code = 'insufficient_tokens';
  constructor(
    readonly required: number,
    readonly available: number,
  ) {
    super(`This request needs ${required} tokens; the balance is ${available}.`, { required, available });
  }
}
