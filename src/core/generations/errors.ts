import { DomainError } from '../errors';
import { ProviderErrorKind } from '../providers/types';

/** A synchronous generation ended as `failed` (nothing charged); carries the stored generation id. */
export class GenerationFailedError extends DomainError {
  readonly code = 'generation_failed';
  constructor(
    readonly generationId: number,
    readonly kind: ProviderErrorKind,
    message: string,
    readonly modelSlug?: string,
  ) {
    super(message, { generation_id: generationId, reason: kind, model: modelSlug });
  }
}

/**
 * The client left before its vendor call was dispatched: the hold was withdrawn, nothing is charged and the vendor
 * was not called. Nobody reads the answer; doors render it for their logs.
 */
export class ClientGoneError extends DomainError {
  readonly code = 'client_closed_request';
  constructor() {
    super('The client closed the request before the model was called');
  }
}

/** A generation that still runs cannot be deleted, nor its result read: it is on its way. */
export class GenerationPendingError extends DomainError {
  readonly code = 'generation_pending';
  constructor(readonly generationId: number) {
    super('This generation is still running: try again once it has finished', { generation_id: generationId });
  }
}

/** The same Idempotency-Key while the first request still runs, or reused with another body. */
export class IdempotencyConflictError extends DomainError {
  readonly code: 'idempotency_conflict' | 'idempotency_key_reused';
  constructor(
    readonly reason: 'in_progress' | 'body_mismatch',
    message: string,
  ) {
    super(message, { reason });
    this.code = reason === 'in_progress' ? 'idempotency_conflict' : 'idempotency_key_reused';
  }
}

/**
 * Why an input file was refused: `invalid` (not a usable URL, unsafe), `too_large`, or `unusable` (unreachable,
 * gone, not a readable image). Doors choose their wording and status from it.
 */
export type InputErrorReason = 'invalid' | 'too_large' | 'unusable';

/** An input image or audio could not be used (unsafe URL, unreachable, not an image, too large). */
export class InputError extends DomainError {
  readonly code = 'invalid_input';
  constructor(
    readonly field: string,
    message: string,
    readonly reason: InputErrorReason = 'unusable',
  ) {
    super(message, { field, reason });
  }
}

/** The user-facing text for a failure kind (the vendor's raw text is kept in the logs, not shown). */
export function failureMessage(kind: ProviderErrorKind, modelSlug: string): string {
  switch (kind) {
    case 'overloaded':
      return `The model ${modelSlug} is overloaded right now. Please wait a minute and try again, or switch to another model.`;
    case 'rate_limited':
      return `The model ${modelSlug} is receiving too many requests right now. Please wait a minute and try again, or switch to another model.`;
    case 'quota':
      return `The model ${modelSlug} is unavailable: its provider account needs attention. Nothing was charged; the operator has been told.`;
    case 'timeout':
      return `The model ${modelSlug} did not finish in time (generation timeout). Nothing was charged; please try again.`;
    case 'content_policy':
      return 'The request was refused by the provider content policy (content policy violation). Nothing was charged; please rephrase it.';
    case 'bad_request':
      return `The model ${modelSlug} rejected these parameters. Nothing was charged.`;
    case 'auth':
      return `The provider of ${modelSlug} refused our credentials. Nothing was charged; the operator has been told.`;
    case 'upstream':
      return `The provider of ${modelSlug} failed to produce a result. Nothing was charged; please try again.`;
  }
}
