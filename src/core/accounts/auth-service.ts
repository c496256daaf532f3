import { DataSource } from 'typeorm';
import type { Logger } from '../../logger';
import { AccessTokens } from './access-tokens';
import { AccountRecovery } from './account-recovery';
import { ApiKeyService } from './api-keys';
import { BearerCredentials, Principal } from './bearer-credentials';
import { CredentialSignIn } from './credential-sign-in';
import { IdTokenVerifier, IdpSettings } from './idp';
import { IdpSignIn } from './idp-sign-in';
import { PasswordLockout } from './lockout';
import type { Mailer } from './mailer';
import { PlanDirectory } from './plans';
import { RefreshTokens } from './refresh-tokens';
import { Sessions, SessionTokens, SignInResult } from './sessions';
import { TelegramLoginData } from './telegram-login';

export type { Principal } from './bearer-credentials';
export type { SessionTokens, SessionUser, SignInResult } from './sessions';

export interface AuthSettings {
  jwtSecret: string;
  botToken?: string;
  loginWidgetMaxAgeSeconds: number;
  idp: IdpSettings;
}

/**
 * Every way to sign in, keep a session and recover a password: the one service the doors call for them (one method
 * per request). Each concern is its own piece: `CredentialSignIn` (register, password, Telegram widget),
 * `IdpSignIn`, `Sessions`, `BearerCredentials` and `AccountRecovery`.
 */
export class AuthService {
  private readonly sessions: Sessions;
  private readonly credentials: CredentialSignIn;
  private readonly idp: IdpSignIn;
  private readonly bearer: BearerCredentials;
  private readonly recovery: AccountRecovery;
  private readonly lockout: PasswordLockout;

  constructor(ds: DataSource, plans: PlanDirectory, apiKeys: ApiKeyService, mailer: Mailer, log: Logger, settings: AuthSettings) {
    const access = new AccessTokens(settings.jwtSecret);
    const refreshTokens = new RefreshTokens(ds);
    this.lockout = new PasswordLockout(ds);
    this.sessions = new Sessions(ds, access, refreshTokens);
    this.credentials = new CredentialSignIn(ds, plans, this.lockout, this.sessions, settings);
    this.idp = new IdpSignIn(ds, plans, apiKeys, new IdTokenVerifier(settings.idp), this.sessions, log);
    this.bearer = new BearerCredentials(ds, plans, apiKeys, access);
    this.recovery = new AccountRecovery(ds, apiKeys, refreshTokens, this.lockout, mailer, log);
  }

  // ---------- sign-in ----------

  /**
   * Creates the account and signs in at once; a verification link goes to the email (`verifyPageUrl`). Until it
   * is followed the email is unverified: no identity-provider sign-in is ever linked to it.
   */
  async register(input: { email: string; password: string; name?: string }, verifyPageUrl?: string): Promise<SignInResult> {
    const { result, email } = await this.credentials.register(input);
    if (verifyPageUrl && email) await this.recovery.sendVerification(result.user.id, email, verifyPageUrl);
    return result;
  }

  loginWithEmail(email: string, password: string): Promise<SignInResult> {
    return this.credentials.loginWithEmail(email, password);
  }

  loginWithPhone(phone: string, password: string): Promise<SignInResult> {
    return this.credentials.loginWithPhone(phone, password);
  }

  /** Telegram Login Widget: a known Telegram id signs in, a new one gets a Starter account. */
  signInWithTelegram(data: TelegramLoginData): Promise<SignInResult> {
    return this.credentials.signInWithTelegram(data);
  }

  /** Telegram Mini App `initData`, on the bot's account (see CredentialSignIn); `startParam` is the link's `startapp`. */
  signInWithTelegramWebApp(initData: string): Promise<SignInResult & { startParam?: string }> {
    return this.credentials.signInWithTelegramWebApp(initData);
  }

  /** An identity provider's ID token, accepted once (see IdpSignIn). */
  signInWithIdp(idToken: string): Promise<SignInResult> {
    return this.idp.signIn(idToken);
  }

  // ---------- sessions ----------

  /** Rotates the refresh token and issues a new access token. @throws InvalidTokenError, AccountBlockedError */
  refresh(refreshToken: string): Promise<SessionTokens> {
    return this.sessions.refresh(refreshToken);
  }

  /** Ends the session of a refresh token and/or an access token's session id (both may be absent). */
  logout(refreshToken: string | undefined, sessionId?: string): Promise<void> {
    return this.sessions.logout(refreshToken, sessionId);
  }

  /**
   * Resolves `Authorization: Bearer <token>`: an API key (`nb_…`, plan level >= 3 needed) or an access token
   * of a live session. @throws InvalidTokenError, PlanTooLowError, AccountBlockedError
   */
  resolveBearer(token: string): Promise<Principal & { sessionId?: string }> {
    return this.bearer.resolve(token);
  }

  /** Maintenance: forgets failure counts of identifiers whose window and lock are over. */
  purgeExpired(): Promise<number> {
    return this.lockout.purgeExpired();
  }

  // ---------- email verification and password recovery ----------

  /** Mails a fresh verification link for `email` (sending failures are logged, not thrown). */
  sendVerification(userId: number, email: string, verifyPageUrl: string): Promise<void> {
    return this.recovery.sendVerification(userId, email, verifyPageUrl);
  }

  /** Marks the email of the link's account verified. @throws InvalidTokenError */
  verifyEmail(token: string): Promise<void> {
    return this.recovery.verifyEmail(token);
  }

  /** Mails a single-use reset token when an account with this email and a password exists (no enumeration). */
  requestPasswordReset(email: string, resetPageUrl: string): Promise<void> {
    return this.recovery.requestPasswordReset(email, resetPageUrl);
  }

  /** Sets a new password with a reset token and ends every session (API keys too, when asked). @throws InvalidTokenError */
  resetPassword(token: string, newPassword: string, options: { revokeApiKeys?: boolean } = {}): Promise<{ apiKeysRevoked: number }> {
    return this.recovery.resetPassword(token, newPassword, options);
  }
}
