import { DataSource } from 'typeorm';
import { UserEntity } from '../../db/entities';
import { getBalance } from '../billing/ledger';
import { NotFoundError } from './errors';
import { Plan } from './plans';
import { AccountSummary, BalanceOwner, BalanceSummary, summarizeAccount, summarizeBalance } from './summaries';

export interface ProfilePatch {
  name?: string;
  /** null removes the picture. */
  avatarUrl?: string | null;
}

export async function describeUser(ds: DataSource, user: UserEntity, plan: Plan): Promise<AccountSummary> {
  return summarizeAccount(user, plan, await getBalance(ds, user.id));
}

export async function describeBalance(ds: DataSource, user: BalanceOwner): Promise<BalanceSummary> {
  return summarizeBalance(user, await getBalance(ds, user.id));
}

/** Only the display name and the picture are writable by the user. */
export async function updateProfile(ds: DataSource, userId: number, plan: Plan, patch: ProfilePatch): Promise<AccountSummary> {
  const repo = ds.getRepository(UserEntity);
  const changes: Partial<UserEntity> = {};
  if (patch.name !== undefined) changes.name = patch.name;
  if (patch.avatarUrl !== undefined) changes.avatarUrl = patch.avatarUrl;
  if (Object.keys(changes).length > 0) await repo.update({ id: userId }, changes);
  return loadAndDescribeUser(ds, userId, plan);
}

export async function loadAndDescribeUser(ds: DataSource, userId: number, plan: Plan): Promise<AccountSummary> {
  const user = await ds.getRepository(UserEntity).findOneBy({ id: userId });
  if (!user) throw new NotFoundError('User');
  return describeUser(ds, user, plan);
}
