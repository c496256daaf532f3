export class AccountConflictError extends Error {
  constructor(readonly field: 'email' | 'phone' | 'telegram_id' | 'identity', message: string) {
    super(message);
    this.name = 'AccountConflictError';
  }
}

export class NotFoundError extends Error {
  constructor(readonly what: string) {
    super(`${what} not found`);
    this.name = 'NotFoundError';
  }
}
