import { DomainError } from '../errors';

// Typed errors of the catalog; each door renders them from its own table, by code.

export class UnknownModelError extends DomainError {
  readonly code = 'model_not_found';
  constructor(readonly slug: string) {
    super(`Unknown model: ${slug}`, { model: slug });
  }
}

/** The model was shut down by its vendor (or taken out of service) and has no replacement in service. */
export class ModelRetiredError extends DomainError {
  readonly code = 'model_retired';
  constructor(
    readonly slug: string,
    readonly shutdownAt: string | null,
  ) {
    super(`The model ${slug} is retired${shutdownAt ? ` (shut down on ${shutdownAt})` : ''} and has no replacement: choose another model`, {
      model: slug,
      shutdown_at: shutdownAt,
    });
  }
}

/** Why a parameter was refused, for doors that word it themselves (the bot's prompt step). */
export type ParamErrorReason = 'required' | 'too_long' | 'invalid';

/** A request parameter that is missing, malformed or not supported by the chosen model. */
export class ParamError extends DomainError {
  readonly code = 'validation_error';
  /** The API name of the offending field, e.g. `size`, `negative_prompt`, `params.image_url`. */
  constructor(
    readonly field: string,
    message: string,
    readonly reason: ParamErrorReason = 'invalid',
  ) {
    super(message, { field, reason });
  }
}
