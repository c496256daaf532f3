import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from './user.entity';

export type LedgerKind = 'grant' | 'reserve' | 'settle' | 'release' | 'refill' | 'purchase' | 'adjust' | 'refund';

/** Append-only. For every user: sum(plan_delta) = balances.plan_tokens, sum(bonus_delta) = balances.bonus_tokens. */
@Entity('ledger_entries')
@Index('ledger_entries_user_idx', ['userId', 'id'])
// A reference names one event: the same reserve, settle, release or grant can never be written twice.
@Index('ledger_entries_reference_idx', ['userId', 'kind', 'reference'], { unique: true, where: '"reference" IS NOT NULL' })
export class LedgerEntryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  /** Null once the account was deleted: its ledger rows stay, anonymised. */
  @Column({ name: 'user_id', type: 'integer', nullable: true })
  userId: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ type: 'text' })
  kind: LedgerKind;

  /** What caused it, e.g. `gen:42`; with `kind` it makes a reserve/settle/release unique. */
  @Column({ type: 'text', nullable: true })
  reference: string | null;

  @Column({ name: 'plan_delta', type: 'integer' })
  planDelta: number;

  @Column({ name: 'bonus_delta', type: 'integer' })
  bonusDelta: number;

  @Column({ type: 'text', nullable: true })
  note: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
