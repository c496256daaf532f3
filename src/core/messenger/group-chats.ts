import type { DataSource } from 'typeorm';

/**
 * Whether the bot serves a messenger group: on unless one of the group's admins switched it off. Kept per chat id
 * in PostgreSQL (bot_group_chats), so every instance and every restart sees the same switch.
 */
export class GroupChats {
  constructor(private readonly ds: DataSource) {}

  async isEnabled(chatId: number): Promise<boolean> {
    const rows = await this.ds.query<{ enabled: boolean }[]>('SELECT enabled FROM bot_group_chats WHERE chat_id = $1', [String(chatId)]);
    return rows[0]?.enabled ?? true;
  }

  /** `changedBy`: the Telegram user id of the admin who switched it (null: an anonymous admin). */
  async setEnabled(chatId: number, enabled: boolean, changedBy: number | null): Promise<void> {
    await this.ds.query(
      `INSERT INTO bot_group_chats (chat_id, enabled, changed_by, updated_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (chat_id) DO UPDATE SET enabled = EXCLUDED.enabled, changed_by = EXCLUDED.changed_by, updated_at = now()`,
      [String(chatId), enabled, changedBy === null ? null : String(changedBy)],
    );
  }
}
