import { DomainError } from '../errors';

/** The operator's console is for an admin's signed-in session only (not an API key, not another account). */
export class AdminRequiredError extends DomainError {
  readonly code = 'admin_required';
  constructor() {
    super('This needs an administrator signed in to the dashboard (API keys cannot use the admin routes).');
  }
}

/** An admin asked to block their own account (they would lock themselves out of the console). */
export class CannotBlockSelfError extends DomainError {
  readonly code = 'cannot_block_self';
  constructor() {
    super('An administrator cannot block their own account; ask another administrator.');
  }
}
