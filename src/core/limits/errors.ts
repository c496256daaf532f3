import { DomainError } from '../errors';

/**
 * The rate counters changed store several times while one request was being counted (Redis flapping between
 * instances): it is refused for now rather than counted without a store that all instances agree on.
 */
export class CountersUnavailableError extends DomainError {
  readonly code = 'rate_counters_unavailable';
  constructor() {
    super('The request counters are being moved between stores; retry in a moment');
  }
}
