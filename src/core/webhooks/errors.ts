import { DomainError } from '../errors';

export type WebhookInputCode = 'invalid_url' | 'https_required' | 'forbidden_address' | 'unknown_event' | 'webhook_limit_reached';

/** A webhook registration the core refuses (bad URL, non-public target, unknown event, too many endpoints). */
export class WebhookInputError extends DomainError {
  constructor(
    readonly code: WebhookInputCode,
    readonly field: 'url' | 'events' | null,
    message: string,
  ) {
    super(message, field ? { field } : {});
  }
}
