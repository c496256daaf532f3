import { DataSource } from 'typeorm';
import { UserEntity } from '../../db/entities';
import type { Logger } from '../../logger';
import { getBalance } from '../billing/ledger';
import { AccessTokens } from './access-tokens';
import type { KeyScope } from './key-limits';
import { ApiKeyService } from './api-keys';
import {
  AccountBlockedError,
  AccountConflictError,
  InvalidCredentialsError,
  InvalidTokenError,
  LoginReplayedError,
  PlanTooLowError,
  SignInUnavailableError,
} from './errors';
import { consumeVerificationToken, issueVerificationToken, VERIFICATION_TOKEN_TTL_SECONDS } from './email-verification';
import { PasswordLockout, SignInIdentifier } from './lockout';
import { inTransaction } from '../../db/transaction';
import { IdTokenVerifier, IdpIdentity, IdpSettings } from './idp';
import type { Mailer } from './mailer';
import { burnPasswordCheck, hashPassword, verifyPassword } from './passwords';
import { consumeResetToken, issueResetToken, RESET_TOKEN_TTL_SECONDS } from './password-reset';
import { API_KEY_MIN_LEVEL, Plan, PlanDirectory } from './plans';
import { RefreshTokens } from './refresh-tokens';
import { TelegramLoginData, verifyTelegramLogin } from './telegram-login';
import { findOrCreateTelegramUser } from './telegram-account';
import { spendOnce } from './single-use';
import { takeOverUnverifiedAccount } from './takeover';
import { createUser, findUserById } from './users';

export interface AuthSettings {
  jwtSecret: string;
  botToken?: string;
  loginWidgetMaxAgeSeconds: number;
  idp: IdpSettings;
}

/** Who signed in, as the sign-in answers show it. */
export interface SessionUser {
  id: number;
  name: string;
  email: string | null;
  plan: string;
  tokenBalance: number;
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
  /** The API key used, with its scope (via `api_key`). */
  key?: KeyScope;
}

const API_KEY_PREFIX = 'nb_';

const displayNameOf = (identity: IdpIdentity): string => identity.name ?? identity.email?.split('@')[0] ?? 'User';
const pictureOf = (identity: IdpIdentity): string | null =>
  identity.picture && /^https?:\/\//i.test(identity.picture) ? identity.picture : null;

/** Every way to sign in, keep a session and recover a password. Transports call one method per request. */
export class AuthService {
  private readonly access: AccessTokens;
  private readonly refreshTokens: RefreshTokens;
  private readonly idTokens: IdTokenVerifier;
  private readonly lockout: PasswordLockout;

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
    this.lockout = new PasswordLockout(ds);
  }

  // ---------- sign-in ----------

  /**
   * Creates the account and signs in at once; a verification link goes to the email (`verifyPageUrl`). Until it
   * is followed the email is unverified: no identity-provider sign-in is ever linked to it.
   */
  async register(input: { email: string; password: string; name?: string }, verifyPageUrl?: string): Promise<SignInResult> {
    const user = await createUser(this.ds, this.plans, {
      name: input.name ?? input.email.split('@')[0],
      email: input.email,
      passwordHash: await hashPassword(input.password),
    });
    if (verifyPageUrl && user.email) await this.sendVerification(user.id, user.email, verifyPageUrl);
    return this.startSession(user, true);
  }

  /** Mails a fresh verification link for `email` (sending failures are logged, not thrown). */
  async sendVerification(userId: number, email: string, verifyPageUrl: string): Promise<void> {
    const token = await issueVerificationToken(this.ds, userId, email);
    const link = `${verifyPageUrl}?token=${encodeURIComponent(token)}`;
    const hours = VERIFICATION_TOKEN_TTL_SECONDS / 3600;
    this.mailer
      .send({
        to: email,
        subject: 'Confirm your email',
        text:
          `Welcome! Confirm that this email address is yours:\n\n` +
          `Open ${link}\nor send POST /api/v2/auth/verify-email with {"token": "${token}"}.\n\n` +
          `The link works once, for ${hours} hours. If you did not create an account, ignore this mail.\n`,
      })
      .catch((err: Error) => this.log.error({ err: err.message, userId }, 'verification mail could not be sent'));
  }

  /** Marks the email of the link's account verified. @throws InvalidTokenError */
  async verifyEmail(token: string): Promise<void> {
    await consumeVerificationToken(this.ds, token);
  }

  async loginWithEmail(email: string, password: string): Promise<SignInResult> {
    return this.loginWithPassword({ email }, password);
  }

  async loginWithPhone(phone: string, password: string): Promise<SignInResult> {
    return this.loginWithPassword({ phone }, password, 'Invalid phone or password');
  }

  /**
   * Both outcomes take the same steps (lock check, lookup, one argon2 verification, count), whether an account
   * has the identifier or not: the answer and its timing tell nothing about which exist.
   */
  private async loginWithPassword(identifier: SignInIdentifier, password: string, failure?: string): Promise<SignInResult> {
    await this.lockout.assertOpen(identifier);
    const user = await this.ds
      .getRepository(UserEntity)
      .findOneBy('email' in identifier ? { email: identifier.email.trim().toLowerCase() } : { phone: identifier.phone.trim() });
    let valid = false;
    if (user?.passwordHash) valid = await verifyPassword(user.passwordHash, password);
    else await burnPasswordCheck(password);
    if (!user || !valid) {
      await this.lockout.recordFailure(identifier);
      throw new InvalidCredentialsError(failure);
    }
    await this.lockout.clear(identifier);
    return this.startSession(user, false);
  }

  /** Telegram Login Widget: a known Telegram id signs in, a new one gets a Starter account. */
  async signInWithTelegram(data: TelegramLoginData): Promise<SignInResult> {
    if (!this.settings.botToken) throw new SignInUnavailableError('Messenger sign-in is not configured on this server (BOT_TOKEN)');
    verifyTelegramLogin(data, this.settings.botToken, this.settings.loginWidgetMaxAgeSeconds);
    await this.spendLoginWidget(data);
    const { user, created } = await findOrCreateTelegramUser(this.ds, this.plans, data);
    return this.startSession(user, created);
  }

  /**
   * A signed widget payload works once (durably, across instances): it is remembered by its hash until it would
   * be too old anyway. @throws LoginReplayedError
   */
  private async spendLoginWidget(data: TelegramLoginData): Promise<void> {
    const expiresAt = data.auth_date + this.settings.loginWidgetMaxAgeSeconds + 60;
    if (!(await spendOnce(this.ds, 'used_login_widgets', data.hash.toLowerCase(), expiresAt))) throw new LoginReplayedError();
  }

  /**
   * OpenID Connect ID token, accepted once (on any instance): a known identity signs in; a verified email of an existing account links the
   * identity to it when that account's email is verified too, and takes the account over when it is not (the
   * email was never proven: whoever registered it loses the password, sessions and API keys); otherwise a
   * Starter account is created.
   */
  async signInWithIdp(idToken: string): Promise<SignInResult> {
    const identity = await this.idTokens.verify(idToken);
    if (!(await spendOnce(this.ds, 'used_id_tokens', identity.tokenHash, identity.acceptedUntil))) {
      throw new LoginReplayedError('This identity token was already used: sign in with the identity provider again');
    }
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
        if (byEmail.emailVerifiedAt) {
          await repo.update({ id: byEmail.id }, { idpIssuer: identity.issuer, idpSubject: identity.subject });
          return this.startSession({ ...byEmail, idpIssuer: identity.issuer, idpSubject: identity.subject }, false);
        }
        return this.startSession(await this.takeOver(byEmail.id, identity), false);
      }
    }
    try {
      const user = await createUser(this.ds, this.plans, {
        name: displayNameOf(identity),
        email: verifiedEmail,
        emailVerified: verifiedEmail !== null,
        avatarUrl: pictureOf(identity),
        idp: { issuer: identity.issuer, subject: identity.subject },
      });
      return this.startSession(user, true);
    } catch (err) {
      const raced =
        err instanceof AccountConflictError ? await repo.findOneBy({ idpIssuer: identity.issuer, idpSubject: identity.subject }) : null;
      if (raced) return this.startSession(raced, false);
      throw err;
    }
  }

  /**
   * The identity provider proved the email of an account whose email was never verified: the identity takes the
   * account over in one transaction, and everything set up without that proof is revoked or removed
   * (`takeOverUnverifiedAccount` lists each table).
   */
  private async takeOver(userId: number, identity: IdpIdentity): Promise<UserEntity> {
    const revoked = this.apiKeys.changeHeard(userId);
    const user = await inTransaction(this.ds, async (em) => {
      const taken = await takeOverUnverifiedAccount(em, userId, {
        issuer: identity.issuer,
        subject: identity.subject,
        name: displayNameOf(identity),
        avatarUrl: pictureOf(identity),
      });
      if (!taken) throw new AccountConflictError('identity', 'This email belongs to an account linked to another identity');
      return em.getRepository(UserEntity).findOneByOrFail({ id: userId });
    });
    await revoked;
    this.log.warn(
      { userId },
      'identity-provider sign-in took over an account with an unverified email; what its registrant set up was removed',
    );
    return user;
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
      user: { id: user.id, name: user.name, email: user.email, plan: user.planSlug, tokenBalance: balance.total },
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

  /** Maintenance: forgets failure counts of identifiers whose window and lock are over. */
  purgeExpired(): Promise<number> {
    return this.lockout.purgeExpired();
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

  /**
   * Sets a new password with a reset token and ends every session of the account; API keys are revoked too when
   * asked (`revokeApiKeys`), since a reset often follows a leak. The lockout is lifted. @throws InvalidTokenError
   */
  async resetPassword(token: string, newPassword: string, options: { revokeApiKeys?: boolean } = {}): Promise<{ apiKeysRevoked: number }> {
    const userId = await consumeResetToken(this.ds, token, await hashPassword(newPassword));
    await this.refreshTokens.revokeAllForUser(userId);
    const user = await findUserById(this.ds, userId);
    await this.lockout.lift([...(user?.email ? [{ email: user.email }] : []), ...(user?.phone ? [{ phone: user.phone }] : [])]);
    return { apiKeysRevoked: options.revokeApiKeys ? await this.apiKeys.revokeAll(userId) : 0 };
  }
}
