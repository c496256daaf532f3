import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/** A carrier payment method the user agreed to save on a first payment; quick-checkout pays with it. */
@Entity('saved_payment_methods')
export class SavedPaymentMethodEntity {
  @PrimaryColumn({ name: 'user_id', type: 'integer', primaryKeyConstraintName: 'PK_saved_payment_methods' })
  userId: number;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_saved_payment_methods' })
  provider: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_saved_payment_methods_user' })
  user?: UserEntity;

  @Column({ name: 'method_id', type: 'text' })
  methodId: string;

  @Column({ type: 'text', nullable: true })
  title: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
