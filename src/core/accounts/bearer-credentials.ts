import { DataSource } from 'typeorm';
import { UserEntity } from '../../db/entities';
import { AccessTokens } from './access-tokens';
import { ApiKeyService } from './api-keys';
import { AccountBlockedError, InvalidTokenError, PlanTooLowError } from './errors';
import type { KeyScope } from './key-limits';
import { API_KEY_MIN_LEVEL, Plan, PlanDirectory } from './plans';

/** Who is calling, once a bearer credential checks out. */
export interface Principal {
  user: UserEntity;
  plan: Plan;
  via: 'api_key' | 'session';
  /** The API key used, with its scope (via `api_key`). */
  key?: KeyScope;
}

const API_KEY_PREFIX = 'nb_';

/** Who a bearer credential speaks for: an API key's owner, or a live session's user. */
export class BearerCredentials {
  constructor(
    private readonly ds: DataSource,
    private readonly plans: PlanDirectory,
    private readonly apiKeys: ApiKeyService,
    private readonly access: AccessTokens,
  ) {}

  /**
   * Resolves `Authorization: Bearer <token>`: an API key (`nb_…`, plan level >= 3 needed) or an access token
   * of a live session. @throws InvalidTokenError, PlanTooLowError, AccountBlockedError
   */
  async resolve(token: string): Promise<Principal & { sessionId?: string }> {
    if (token.startsWith(API_KEY_PREFIX)) {
      const key = await this.apiKeys.verifyWithOwner(token);
      if (!key) throw new InvalidTokenError();
      const principal = await this.principalOf(key.user);
      if (principal.plan.level < API_KEY_MIN_LEVEL) {
        const required = [...(await this.plans.all()).values()].find((p) => p.level >= API_KEY_MIN_LEVEL);
        throw new PlanTooLowError(
          required?.slug ?? 'vip',
          `Insufficient plan: API keys need the ${required?.name ?? 'VIP'} plan or higher (yours: ${principal.plan.name}). ` +
            'Upgrade the plan, or sign in to use a web access token.',
          { userId: key.user.id, keyId: key.key.id },
        );
      }
      return { ...principal, via: 'api_key', key: key.key };
    }
    const claims = await this.access.verify(token);
    // One query: the user, provided the token's session is live AND belongs to that user (a session id of one
    // account never vouches for another).
    const user = await this.ds
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .where('u.id = :userId', { userId: claims.userId })
      .andWhere(
        `EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = :sessionId AND r.user_id = u.id
                   AND r.rotated_at IS NULL AND r.revoked_at IS NULL AND r.expires_at > now())`,
        { sessionId: claims.sessionId },
      )
      .getOne();
    if (!user) throw new InvalidTokenError();
    return { ...(await this.principalOf(user)), via: 'session', sessionId: claims.sessionId };
  }

  private async principalOf(user: UserEntity): Promise<Omit<Principal, 'via'>> {
    if (user.isBlocked) throw new AccountBlockedError();
    return { user, plan: await this.plans.get(user.planSlug) };
  }
}
