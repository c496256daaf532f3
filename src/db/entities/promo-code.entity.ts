import { Check, Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/**
 * A promo code made by an operator: bonus tokens, or a plan for some days. Redeemed once per account
 * (`promo_redemptions`) while `uses < max_uses` and before `expires_at`; `uses` only grows, in the redemption's
 * transaction, under a guarded update.
 */
@Entity('promo_codes')
@Check('promo_codes_reward_check', `("bonus_tokens" IS NOT NULL) <> ("plan_slug" IS NOT NULL AND "plan_days" IS NOT NULL)`)
@Check('promo_codes_uses_check', `"uses" >= 0 AND "uses" <= "max_uses"`)
export class PromoCodeEntity {
  @PrimaryGeneratedColumn()
  id: number;

  /** Upper-case letters, digits, `-` and `_`; unique. */
  @Column({ type: 'text', unique: true })
  code: string;

  @Column({ name: 'bonus_tokens', type: 'integer', nullable: true })
  bonusTokens: number | null;

  @Column({ name: 'plan_slug', type: 'text', nullable: true })
  planSlug: string | null;

  @Column({ name: 'plan_days', type: 'integer', nullable: true })
  planDays: number | null;

  @Column({ name: 'max_uses', type: 'integer' })
  maxUses: number;

  @Column({ type: 'integer', default: 0 })
  uses: number;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'created_by', type: 'integer', nullable: true })
  createdBy: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'created_by' })
  creator?: UserEntity;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
