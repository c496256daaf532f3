import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from './user.entity';

export type BudgetPeriod = 'day' | 'month' | 'total';

@Entity('api_keys')
@Check('api_keys_budget', `"token_budget" IS NULL OR "token_budget" >= 0`)
@Check('api_keys_budget_period', `"budget_period" IN ('day', 'month', 'total')`)
@Index('api_keys_user_idx', ['userId'])
export class ApiKeyEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ type: 'text' })
  name: string;

  /** HMAC-SHA256 of the full key with the server pepper; the key itself is never stored. */
  @Column({ name: 'key_hash', type: 'text', unique: true })
  keyHash: string;

  /** First and last characters, for the masked display. */
  @Column({ name: 'key_prefix', type: 'text' })
  keyPrefix: string;

  @Column({ name: 'key_last4', type: 'text' })
  keyLast4: string;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  /** Tokens the key may spend per `budgetPeriod`; null: only the account's balance limits it. */
  @Column({ name: 'token_budget', type: 'integer', nullable: true })
  tokenBudget: number | null;

  @Column({ name: 'budget_period', type: 'text', default: 'month' })
  budgetPeriod: BudgetPeriod;

  /** The catalog slugs the key may run; null: every model the plan allows. */
  @Column({ type: 'text', array: true, nullable: true })
  models: string[] | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  /**
   * Tokens held or charged since `spentPeriodStart` (the token hold adds, settlement gives back what was not
   * used); a counter from an earlier period counts as 0. Written only by the billing statements.
   */
  @Column({ type: 'integer', default: 0 })
  spent: number;

  @Column({ name: 'spent_period_start', type: 'timestamptz', nullable: true })
  spentPeriodStart: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
