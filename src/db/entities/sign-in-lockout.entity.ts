import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Failed password sign-ins with one submitted identifier (an email or a phone, whether an account has it or not)
 * in the current window, and until when password sign-in with it is locked. Keyed by the identifier's SHA-256.
 */
@Entity('sign_in_lockouts')
@Index('sign_in_lockouts_window_idx', ['windowStartedAt'])
export class SignInLockoutEntity {
  @PrimaryColumn({ name: 'identifier_hash', type: 'text', primaryKeyConstraintName: 'PK_sign_in_lockouts' })
  identifierHash: string;

  @Column({ type: 'integer', default: 0 })
  failures: number;

  @Column({ name: 'window_started_at', type: 'timestamptz' })
  windowStartedAt: Date;

  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil: Date | null;
}
