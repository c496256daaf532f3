import { DomainError } from '../errors';

/** The URL was refused before any connection: bad scheme, unparsable, or it points at a non-public address. */
export class UnsafeUrlError extends DomainError {
  readonly code = 'unsafe_url';
  constructor(
    readonly reason: 'invalid_url' | 'scheme_not_allowed' | 'forbidden_address',
    message: string,
  ) {
    super(message, { reason });
  }
}

export type FetchFailureKind = 'unreachable' | 'timeout' | 'too_large' | 'bad_status' | 'too_many_redirects' | 'aborted';

/** The URL was allowed but fetching it did not produce an acceptable body. */
export class FetchFailedError extends DomainError {
  readonly code = 'fetch_failed';
  constructor(
    readonly kind: FetchFailureKind,
    message: string,
    /** HTTP status for `bad_status`. */
    readonly status?: number,
  ) {
    super(message, { reason: kind, status });
  }
}
