import { DomainError } from '../errors';

/** The operator's console is for an admin's signed-in session only (not an API key, not another account). */
export class AdminRequiredError extends DomainError {
  readonly code = 'admin_required';
  constructor() {
    super('This needs an administrator signed in to the dashboard (API keys cannot use the admin routes).');
  }
}
