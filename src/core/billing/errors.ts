export class InsufficientTokensError extends Error {
  constructor(
    readonly required: number,
    readonly available: number,
  ) {
    super(`This request needs ${required} tokens; the balance is ${available}.`);
    this.name = 'InsufficientTokensError';
  }
}
