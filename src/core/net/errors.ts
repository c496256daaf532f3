/** The URL was refused before any connection: bad scheme, unparsable, or it points at a non-public address. */
export class UnsafeUrlError extends Error {
  override readonly name = 'UnsafeUrlError';
  constructor(
    readonly reason: 'invalid_url' | 'scheme_not_allowed' | 'forbidden_address',
    message: string,
  ) {
    super(message);
  }
}

export type FetchFailureKind =
  | 'unreachable'
  | 'timeout'
  | 'too_large'
  | 'bad_status'
  | 'too_many_redirects'
  | 'aborted';

/** The URL was allowed but fetching it did not produce an acceptable body. */
export class FetchFailedError extends Error {
  override readonly name = 'FetchFailedError';
  constructor(
    readonly kind: FetchFailureKind,
    message: string,
    /** HTTP status for `bad_status`. */
    readonly status?: number,
  ) {
    super(message);
  }
}
