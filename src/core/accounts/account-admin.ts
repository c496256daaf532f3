import { DataSource } from 'typeorm';
import { UserEntity } from '../../db/entities';
import { PlanSlug } from '../catalog/types';
import { getBalance, grantBonus } from '../billing/ledger';
import { PlanDirectory } from './plans';
import { findOrCreateTelegramUser, findUserByReference, TelegramAccount, TelegramProfile } from './telegram-account';
import { changePlan } from './users';

/** Accounts as the messenger door and operators reach them: Telegram sign-in, lookups, grants, plan changes. */
export class AccountAdmin {
  constructor(
    private readonly ds: DataSource,
    private readonly plans: PlanDirectory,
  ) {}

  findOrCreateTelegramUser(profile: TelegramProfile): Promise<TelegramAccount> {
    return findOrCreateTelegramUser(this.ds, this.plans, profile);
  }

  /** An account by internal id, `tg:<telegram id>` or `@username`. */
  findByReference(reference: string): Promise<UserEntity | null> {
    return findUserByReference(this.ds, reference);
  }

  /** Grants bonus tokens once per `reference`; answers the new total balance. */
  async grantBonus(userId: number, amount: number, reference: string, note: string): Promise<number> {
    await grantBonus(this.ds, userId, amount, reference, note);
    return (await getBalance(this.ds, userId)).total;
  }

  changePlan(userId: number, plan: PlanSlug): Promise<UserEntity> {
    return changePlan(this.ds, this.plans, userId, plan);
  }
}
