import { DataSource } from 'typeorm';
import { ApiKeyEntity } from '../../db/entities';
import { ApiKeyService, CreatedApiKey, KeyLimits } from './api-keys';
import { QuotaExceededError } from './errors';
import type { KeyScope } from './key-limits';
import { withAccountLock } from './per-account-limit';

/** Keys per account: plenty for per-environment keys, few enough that a leak audit stays possible. */
export const MAX_API_KEYS_PER_USER = 20;

/** Creates a key unless the account already has the maximum; the count and the insert hold the account's lock. */
export async function createApiKeyWithinQuota(
  ds: DataSource,
  apiKeys: ApiKeyService,
  userId: number,
  name: string,
  limits: KeyLimits = {},
  by?: KeyScope,
): Promise<CreatedApiKey> {
  return withAccountLock(ds, userId, async (em) => {
    const count = await em.getRepository(ApiKeyEntity).countBy({ userId });
    if (count >= MAX_API_KEYS_PER_USER) throw new QuotaExceededError('API keys', MAX_API_KEYS_PER_USER);
    return apiKeys.create(userId, name, em, limits, by);
  });
}
