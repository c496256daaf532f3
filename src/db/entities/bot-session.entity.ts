import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** grammY session and conversation state, so a restart loses nothing. */
@Entity('bot_sessions')
export class BotSessionEntity {
  @PrimaryColumn({ type: 'text' })
  key: string;

  @Column({ type: 'jsonb' })
  value: unknown;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
