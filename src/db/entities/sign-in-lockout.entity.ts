import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/** Failed password sign-ins of an account in the current window, and until when password sign-in is locked. */
@Entity('sign_in_lockouts')
export class SignInLockoutEntity {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @OneToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ type: 'integer', default: 0 })
  failures: number;

  @Column({ name: 'window_started_at', type: 'timestamptz' })
  windowStartedAt: Date;

  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil: Date | null;
}
