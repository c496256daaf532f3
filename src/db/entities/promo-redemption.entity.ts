import { CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { PromoCodeEntity } from './promo-code.entity';
import { UserEntity } from './user.entity';

/** One account's redemption of one promo code: the primary key makes it once per account. */
@Entity('promo_redemptions')
@Index('promo_redemptions_user_idx', ['userId'])
export class PromoRedemptionEntity {
  @PrimaryColumn({ name: 'promo_id', type: 'integer' })
  promoId: number;

  @ManyToOne(() => PromoCodeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'promo_id' })
  promo?: PromoCodeEntity;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
