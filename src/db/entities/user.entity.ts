import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { PlanEntity } from './plan.entity';

@Entity('users')
@Index('users_idp_identity_idx', ['idpIssuer', 'idpSubject'], { unique: true, where: '"idp_subject" IS NOT NULL' })
// Built CONCURRENTLY by migration 1764480000000: not synchronized.
@Index('users_next_refill_idx', { synchronize: false })
// The console's prefix search on email and username (pattern ops), built CONCURRENTLY by migration 1764510000000.
@Index('users_email_prefix_idx', { synchronize: false })
@Index('users_username_prefix_idx', { synchronize: false })
export class UserEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'text' })
  name: string;

  /** Stored lower-cased; unique. */
  @Column({ type: 'text', nullable: true, unique: true })
  email: string | null;

  /** When the owner proved the email (a verification link, or an identity provider's verified claim). */
  @Column({ name: 'email_verified_at', type: 'timestamptz', nullable: true })
  emailVerifiedAt: Date | null;

  /** E.164; unique. */
  @Column({ type: 'text', nullable: true, unique: true })
  phone: string | null;

  @Column({ name: 'telegram_id', type: 'bigint', nullable: true, unique: true })
  telegramId: string | null;

  @Column({ name: 'messenger_username', type: 'text', nullable: true })
  messengerUsername: string | null;

  @Column({ name: 'idp_subject', type: 'text', nullable: true })
  idpSubject: string | null;

  @Column({ name: 'idp_issuer', type: 'text', nullable: true })
  idpIssuer: string | null;

  @Column({ name: 'avatar_url', type: 'text', nullable: true })
  avatarUrl: string | null;

  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash: string | null;

  @Column({ name: 'plan_slug', type: 'text', default: 'free' })
  planSlug: string;

  @ManyToOne(() => PlanEntity)
  @JoinColumn({ name: 'plan_slug' })
  plan?: PlanEntity;

  @Column({ name: 'plan_expires_at', type: 'timestamptz', nullable: true })
  planExpiresAt: Date | null;

  /** A bought plan is paid up to here; without a renewal it lapses to Starter at the first period end after it. */
  @Column({ name: 'plan_paid_through', type: 'timestamptz', nullable: true })
  planPaidThrough: Date | null;

  /** Start of the current billing period: plan tokens were last reset to the allowance then. */
  @Column({ name: 'period_started_at', type: 'timestamptz', default: () => 'now()' })
  periodStartedAt: Date;

  @Column({ name: 'next_refill_at', type: 'timestamptz' })
  nextRefillAt: Date;

  @Column({ name: 'is_blocked', type: 'boolean', default: false })
  isBlocked: boolean;

  /** When an operator blocked the account (null: not blocked), and the reason they gave. */
  @Column({ name: 'blocked_at', type: 'timestamptz', nullable: true })
  blockedAt: Date | null;

  @Column({ name: 'blocked_reason', type: 'text', nullable: true })
  blockedReason: string | null;

  /** May use the operator's console (`/api/v2/admin`): set by `user:admin`, or at start for ADMIN_CHAT_IDS. */
  /** When Telegram last answered that this user blocked the bot (a broadcast found it); null: reachable. */
  @Column({ name: 'bot_blocked_at', type: 'timestamptz', nullable: true })
  botBlockedAt: Date | null;

  @Column({ name: 'is_admin', type: 'boolean', default: false })
  isAdmin: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
