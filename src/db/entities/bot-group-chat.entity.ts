import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A Telegram group the bot was switched off or on in (by a group admin: /off, /on). No row: on. */
@Entity('bot_group_chats')
export class BotGroupChatEntity {
  @PrimaryColumn({ name: 'chat_id', type: 'bigint', primaryKeyConstraintName: 'PK_bot_group_chats' })
  chatId: string;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  /** The Telegram user id of the admin who switched it last. */
  @Column({ name: 'changed_by', type: 'bigint', nullable: true })
  changedBy: string | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
