import { DomainError } from '../errors';

/** Which cap a document is over: its file size, its pages, or the text it holds. */
export type DocumentLimit = 'bytes' | 'pages' | 'characters';

/** A document over one of the caps: refused before any model reads it (nothing is charged). */
export class DocumentTooLargeError extends DomainError {
  readonly code = 'document_too_large';
  constructor(
    readonly limit: DocumentLimit,
    readonly max: number,
    readonly actual: number,
  ) {
    super(`The document is too large: ${actual} ${limit}, at most ${max}`, { limit, max, actual });
  }
}

/** Why a document cannot be read: not a kind the service reads, damaged, password-protected, not text, or empty. */
export type UnreadableReason = 'type' | 'damaged' | 'encrypted' | 'binary' | 'empty';

/** A document the service cannot read (nothing is charged). */
export class DocumentUnreadableError extends DomainError {
  readonly code = 'document_unreadable';
  constructor(
    readonly reason: UnreadableReason,
    detail?: string,
  ) {
    super(`The document cannot be read (${reason}${detail ? `: ${detail}` : ''})`, { reason });
  }
}
