import { DataSource } from 'typeorm';
import { getBalance } from '../billing/ledger';
import type { UserRecord } from '../records';
import { Plan } from './plans';
import { findUserById } from './users';
import { describeBalance, loadAndDescribeUser, ProfilePatch, updateProfile } from './profile';
import { AccountSummary, BalanceOwner, BalanceSummary } from './summaries';

/** The account's profile and balance, summarized for the doors. */
export class ProfileService {
  constructor(private readonly ds: DataSource) {}

  /** An account's summary, read afresh (it shows what the door's record does not carry). */
  describe(userId: number, plan: Plan): Promise<AccountSummary> {
    return loadAndDescribeUser(this.ds, userId, plan);
  }

  update(userId: number, plan: Plan, patch: ProfilePatch): Promise<AccountSummary> {
    return updateProfile(this.ds, userId, plan, patch);
  }

  balance(user: BalanceOwner): Promise<BalanceSummary> {
    return describeBalance(this.ds, user);
  }

  user(userId: number): Promise<UserRecord | null> {
    return findUserById(this.ds, userId);
  }

  /** Plan plus bonus tokens. */
  async totalTokens(userId: number): Promise<number> {
    return (await getBalance(this.ds, userId)).total;
  }
}
