import { DataSource } from 'typeorm';
import { UserEntity } from '../../db/entities';
import { PlanDirectory } from './plans';
import { findOrCreateTelegramUser, findUserByReference, TelegramAccount, TelegramProfile } from './telegram-account';

/**
 * Accounts as the messenger door and operators reach them: Telegram sign-in and lookups (grants and plan changes are
 * the console's AdminUserDesk, audited).
 */
export class AccountAdmin {
  constructor(
    private readonly ds: DataSource,
    private readonly plans: PlanDirectory,
  ) {}

  /** The user wrote to the bot again: broadcasts reach them again. */
  async markBotReachable(userId: number): Promise<void> {
    await this.ds.query('UPDATE users SET bot_blocked_at = NULL WHERE id = $1 AND bot_blocked_at IS NOT NULL', [userId]);
  }

  findOrCreateTelegramUser(profile: TelegramProfile): Promise<TelegramAccount> {
    return findOrCreateTelegramUser(this.ds, this.plans, profile);
  }

  /** An account by internal id, `tg:<telegram id>` or `@username`. */
  findByReference(reference: string): Promise<UserEntity | null> {
    return findUserByReference(this.ds, reference);
  }
}
