// Typed errors of the catalog. The transport layer maps them to status codes once
// (UnknownModelError -> 404 or 400 `unknown_model`, ParamError -> 400/422 naming `field`).

export class UnknownModelError extends Error {
  readonly code = 'unknown_model';
  constructor(readonly slug: string) {
    super(`Unknown model: ${slug}`);
    this.name = 'UnknownModelError';
  }
}

/** A request parameter that is missing, malformed or not supported by the chosen model. */
export class ParamError extends Error {
  readonly code = 'invalid_parameter';
  /** The API name of the offending field, e.g. `size`, `negative_prompt`, `params.image_url`. */
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'ParamError';
  }
}
