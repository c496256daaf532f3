import { DataSource } from 'typeorm';
import { UserEntity } from '../../db/entities';
import { getBalance } from '../billing/ledger';
import { AccessTokens } from './access-tokens';
import { AccountBlockedError, InvalidTokenError } from './errors';
import { RefreshTokens } from './refresh-tokens';
import { findUserById } from './users';

/** Who signed in, as the sign-in answers show it. */
export interface SessionUser {
  id: number;
  name: string;
  email: string | null;
  plan: string;
  tokenBalance: number;
  isAdmin: boolean;
}

export interface SessionTokens {
  accessToken: string;
  expiresIn: number;
  refreshToken: string;
  refreshExpiresAt: Date;
}

export interface SignInResult extends SessionTokens {
  user: SessionUser;
  isNewUser: boolean;
}

/** Sessions: a sign-in starts one (a refresh-token family and an access token), refreshes rotate it, logout ends it. */
export class Sessions {
  constructor(
    private readonly ds: DataSource,
    readonly access: AccessTokens,
    readonly refreshTokens: RefreshTokens,
  ) {}

  async start(user: UserEntity, isNewUser: boolean): Promise<SignInResult> {
    if (user.isBlocked) throw new AccountBlockedError();
    const refresh = await this.refreshTokens.issue(user.id);
    const access = await this.access.issue({ userId: user.id, sessionId: refresh.familyId });
    const balance = await getBalance(this.ds, user.id);
    return {
      accessToken: access.token,
      expiresIn: access.expiresIn,
      refreshToken: refresh.token,
      refreshExpiresAt: refresh.expiresAt,
      isNewUser,
      user: { id: user.id, name: user.name, email: user.email, plan: user.planSlug, tokenBalance: balance.total, isAdmin: user.isAdmin },
    };
  }

  /** Rotates the refresh token and issues a new access token. @throws InvalidTokenError, AccountBlockedError */
  async refresh(refreshToken: string): Promise<SessionTokens> {
    const next = await this.refreshTokens.rotate(refreshToken);
    const user = await findUserById(this.ds, next.userId);
    if (!user) throw new InvalidTokenError('Invalid or expired refresh token', 'refresh');
    if (user.isBlocked) {
      await this.refreshTokens.revokeFamily(next.familyId);
      throw new AccountBlockedError();
    }
    const access = await this.access.issue({ userId: user.id, sessionId: next.familyId });
    return { accessToken: access.token, expiresIn: access.expiresIn, refreshToken: next.token, refreshExpiresAt: next.expiresAt };
  }

  /** Ends the session of a refresh token and/or an access token's session id (both may be absent). */
  async logout(refreshToken: string | undefined, sessionId?: string): Promise<void> {
    const family = refreshToken ? await this.refreshTokens.familyOf(refreshToken) : null;
    for (const id of new Set([family, sessionId])) if (id) await this.refreshTokens.revokeFamily(id);
  }
}
