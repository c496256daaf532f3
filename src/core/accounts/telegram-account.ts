import { DataSource } from 'typeorm';
import { UserEntity } from '../../db/entities';
import { AccountConflictError } from './errors';
import { PlanDirectory } from './plans';
import { createUser } from './users';

/** What Telegram tells us about a user (bot updates and the Login Widget carry the same fields). */
export interface TelegramProfile {
  id: number | string;
  first_name?: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
  /** Language of a new account's settings. */
  language?: 'en' | 'ru';
}

export interface TelegramAccount {
  user: UserEntity;
  created: boolean;
}

/**
 * The account of a Telegram user: found by Telegram id (keeping the username current), or created as a
 * Starter account with the one-time grant. The bot's /start and the web messenger login use the same
 * `telegram_id` column, so both reach the same account; two first contacts racing end on one account.
 */
export async function findOrCreateTelegramUser(ds: DataSource, plans: PlanDirectory, profile: TelegramProfile): Promise<TelegramAccount> {
  const telegramId = String(profile.id);
  const repo = ds.getRepository(UserEntity);
  const existing = await repo.findOneBy({ telegramId });
  if (existing) {
    if (profile.username && existing.messengerUsername !== profile.username) {
      await repo.update({ id: existing.id }, { messengerUsername: profile.username });
      existing.messengerUsername = profile.username;
    }
    return { user: existing, created: false };
  }
  const name = [profile.first_name, profile.last_name].filter(Boolean).join(' ').trim() || profile.username || `user${telegramId}`;
  try {
    const user = await createUser(ds, plans, {
      name,
      telegramId,
      messengerUsername: profile.username ?? null,
      avatarUrl: profile.photo_url ?? null,
      language: profile.language,
    });
    return { user, created: true };
  } catch (err) {
    const raced = err instanceof AccountConflictError && err.field === 'telegram_id' ? await repo.findOneBy({ telegramId }) : null;
    if (raced) return { user: raced, created: false };
    throw err;
  }
}

/** An account by internal id, `tg:<telegram id>` or `@username` (operator commands). */
export async function findUserByReference(ds: DataSource, reference: string): Promise<UserEntity | null> {
  const repo = ds.getRepository(UserEntity);
  const ref = reference.trim();
  if (/^\d{1,10}$/.test(ref)) return repo.findOneBy({ id: Number(ref) });
  const tg = /^tg:(\d{1,20})$/i.exec(ref);
  if (tg) return repo.findOneBy({ telegramId: tg[1] });
  const at = /^@([A-Za-z0-9_]{1,64})$/.exec(ref);
  if (at) {
    return repo
      .createQueryBuilder('u')
      .where('lower(u.messenger_username) = lower(:name)', { name: at[1] })
      .orderBy('u.id', 'ASC')
      .getOne();
  }
  return null;
}
