import { DataSource } from 'typeorm';
import { UserEntity } from '../../db/entities';
import type { Logger } from '../../logger';
import { getBalance } from '../billing/ledger';
import { AccessTokens } from './access-tokens';
import { ApiKeyService } from './api-keys';
import {
  AccountBlockedError,
  AccountConflictError,
  InvalidCredentialsError,
  InvalidTokenError,
  PlanTooLowError,
  SignInUnavailableError,
} from './errors';
import { IdTokenVerifier, IdpSettings } from './idp';
import type { Mailer } from './mailer';
import { burnPasswordCheck, hashPassword, verifyPassword } from './passwords';
import { consumeResetToken, issueResetToken, RESET_TOKEN_TTL_SECONDS } from './password-reset';
import { API_KEY_MIN_LEVEL, Plan, PlanDirectory } from './plans';
import { RefreshTokens } from './refresh-tokens';
import { TelegramLoginData, verifyTelegramLogin } from './telegram-login';
import { findOrCreateTelegramUser } from './telegram-account';
import { createUser, findUserById } from './users';

export interface AuthSettings {
  jwtSecret: string;
  botToken?: string;
  loginWidgetMaxAgeSeconds: number;
  idp: IdpSettings;
}

/** The `user` object of the sign-in responses. */
export interface SessionUser {
  id: number;
  name: string;
  email: string | null;
  plan: string;
  token_balance: number;
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

/** Who is calling, once a bearer credential checks out. */
export interface Principal {
  user: UserEntity;
  plan: Plan;
  via: 'api_key' | 'session';
  keyId?: number;
}

const API_KEY_PREFIX = 'nb_';

/** Every way to sign in, keep a session and recover a password. Transports call one method per request. */
export class AuthService {
  private readonly access: AccessTokens;
  private readonly refreshTokens: RefreshTokens;
  private readonly idTokens: IdTokenVerifier;

  constructor(
    private readonly ds: DataSource,
    private readonly plans: PlanDirectory,
    private readonly apiKeys: ApiKeyService,
    private readonly mailer: Mailer,
    private readonly log: Logger,
    private readonly settings: AuthSettings,
  ) {
    this.access = new AccessTokens(settings.jwtSecret);
    this.refreshTokens = new RefreshTokens(ds);
    this.idTokens = new IdTokenVerifier(settings.idp);
  }

  // ---------- sign-in ----------

  async register(input: { email: string; password: string; name?: string }): Promise<SignInResult> {
    const user = await createUser(this.ds, this.plans, {
      name: input.name ?? input.email.split('@')[0],
      email: input.email,
      passwordHash: await hashPassword(input.password),
    });
    return this.startSession(user, true);
  }

  async loginWithEmail(email: string, password: string): Promise<SignInResult> {
    return this.loginWithPassword(await this.ds.getRepository(UserEntity).findOneBy({ email }), password);
  }

  async loginWithPhone(phone: string, password: string): Promise<SignInResult> {
    return this.loginWithPassword(await this.ds.getRepository(UserEntity).findOneBy({ phone }), password, 'Invalid phone or password');
  }

  private async loginWithPassword(user: UserEntity | null, password: string, failure?: string): Promise<SignInResult> {
    if (!user?.passwordHash) {
      await burnPasswordCheck(password);
      throw new InvalidCredentialsError(failure);
    }
    if (!(await verifyPassword(user.passwordHash, password))) throw new InvalidCredentialsError(failure);
    return this.startSession(user, false);
  }

  /** Telegram Login Widget: a known Telegram id signs in, a new one gets a Starter account. */
  async signInWithTelegram(data: TelegramLoginData): Promise<SignInResult> {
    if (!this.settings.botToken) throw new SignInUnavailableError('Messenger sign-in is not configured on this server (BOT_TOKEN)');
    verifyTelegramLogin(data, this.settings.botToken, this.settings.loginWidgetMaxAgeSeconds);
    const { user, created } = await findOrCreateTelegramUser(this.ds, this.plans, data);
    return this.startSession(user, created);
  }

  /**
   * OpenID Connect ID token: a known identity signs in; a verified email of an existing account links the
   * identity to it; otherwise a Starter account is created.
   */
  async signInWithIdp(idToken: string): Promise<SignInResult> {
    const identity = await this.idTokens.verify(idToken);
    const repo = this.ds.getRepository(UserEntity);
    const known = await repo.findOneBy({ idpIssuer: identity.issuer, idpSubject: identity.subject });
    if (known) return this.startSession(known, false);

    const verifiedEmail = identity.emailVerified ? identity.email : null;
    if (verifiedEmail) {
      const byEmail = await repo.findOneBy({ email: verifiedEmail });
      if (byEmail) {
        if (byEmail.idpSubject !== null) {
          throw new AccountConflictError('identity', 'This email belongs to an account linked to another identity');
        }
        await repo.update({ id: byEmail.id }, { idpIssuer: identity.issuer, idpSubject: identity.subject });
        byEmail.idpIssuer = identity.issuer;
        byEmail.idpSubject = identity.subject;
        return this.startSession(byEmail, false);
      }
    }
    try {
      const user = await createUser(this.ds, this.plans, {
        name: identity.name ?? identity.email?.split('@')[0] ?? 'User',
        email: verifiedEmail,
        avatarUrl: identity.picture && /^https?:\/\//i.test(identity.picture) ? identity.picture : null,
        idp: { issuer: identity.issuer, subject: identity.subject },
      });
      return this.startSession(user, true);
    } catch (err) {
      const raced = err instanceof AccountConflictError ? await repo.findOneBy({ idpIssuer: identity.issuer, idpSubject: identity.subject }) : null;
      if (raced) return this.startSession(raced, false);
      throw err;
    }
  }

  private async startSession(user: UserEntity, isNewUser: boolean): Promise<SignInResult> {
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
      user: { id: user.id, name: user.name, email: user.email, plan: user.planSlug, token_balance: balance.total },
    };
  }

  // ---------- sessions ----------

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

  /**
   * Resolves `Authorization: Bearer <token>`: an API key (`nb_…`, plan level >= 3 needed) or an access token
   * of a live session. @throws InvalidTokenError, PlanTooLowError, AccountBlockedError
   */
  async resolveBearer(token: string): Promise<Principal & { sessionId?: string }> {
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
        );
      }
      return { ...principal, via: 'api_key', keyId: key.keyId };
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

  // ---------- password recovery ----------

  /**
   * Mails a single-use reset token when an account with this email and a password exists. The caller answers
   * the same way either way (no account enumeration); the mail goes out in the background.
   */
  async requestPasswordReset(email: string, resetPageUrl: string): Promise<void> {
    const user = await this.ds.getRepository(UserEntity).findOneBy({ email });
    if (!user || user.isBlocked) return;
    const { token } = await issueResetToken(this.ds, user.id);
    const link = `${resetPageUrl}?token=${encodeURIComponent(token)}`;
    const minutes = RESET_TOKEN_TTL_SECONDS / 60;
    this.mailer
      .send({
        to: email,
        subject: 'Reset your password',
        text:
          `Someone (hopefully you) asked to reset the password of your account.\n\n` +
          `Open ${link}\nor send POST /api/v2/auth/reset-password with {"token": "${token}", "password": "<new password>"}.\n\n` +
          `The link works once, for ${minutes} minutes. If you did not ask for it, ignore this mail.\n`,
      })
      .catch((err: Error) => this.log.error({ err: err.message, userId: user.id }, 'password reset mail could not be sent'));
  }

  /** Sets a new password with a reset token and ends every session of the account. @throws InvalidTokenError */
  async resetPassword(token: string, newPassword: string): Promise<void> {
    const userId = await consumeResetToken(this.ds, token, await hashPassword(newPassword));
    await this.refreshTokens.revokeAllForUser(userId);
  }
}
