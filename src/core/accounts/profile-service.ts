import { DataSource } from 'typeorm';
import { UserEntity } from '../../db/entities';
import { getBalance } from '../billing/ledger';
import { Plan } from './plans';
import { findUserById } from './users';
import { describeBalance, describeUser, ProfilePatch, updateProfile } from './profile';
import { BalanceView, UserView } from './views';

/** The account's profile and balance views, for the doors. */
export class ProfileService {
  constructor(private readonly ds: DataSource) {}

  describe(user: UserEntity, plan: Plan): Promise<UserView> {
    return describeUser(this.ds, user, plan);
  }

  update(userId: number, plan: Plan, patch: ProfilePatch): Promise<UserView> {
    return updateProfile(this.ds, userId, plan, patch);
  }

  balance(user: UserEntity): Promise<BalanceView> {
    return describeBalance(this.ds, user);
  }

  user(userId: number): Promise<UserEntity | null> {
    return findUserById(this.ds, userId);
  }

  /** Plan plus bonus tokens. */
  async totalTokens(userId: number): Promise<number> {
    return (await getBalance(this.ds, userId)).total;
  }
}
