import { DomainError } from '../errors';

/** The provider cannot take work now (no credentials in production, circuit open, overloaded). */
export class ProviderUnavailableError extends DomainError {
  readonly code = 'model_unavailable';
  constructor(
    readonly provider: string,
    readonly modelSlug: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message, { provider, model: modelSlug, retry_after: retryAfterSeconds });
  }
}
