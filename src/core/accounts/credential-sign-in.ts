import { DataSource } from 'typeorm';
import { UserEntity } from '../../db/entities';
import { InvalidCredentialsError, LoginReplayedError, SignInUnavailableError } from './errors';
import { PasswordLockout, SignInIdentifier } from './lockout';
import { burnPasswordCheck, hashPassword, verifyPassword } from './passwords';
import { PlanDirectory } from './plans';
import type { Sessions, SignInResult } from './sessions';
import { spendOnce } from './single-use';
import { findOrCreateTelegramUser } from './telegram-account';
import { TelegramLoginData, verifyTelegramLogin } from './telegram-login';
import { verifyWebAppInitData } from './telegram-webapp';
import { createUser } from './users';

export interface CredentialSettings {
  /** The bot's token: it signs the Telegram Login Widget's payloads. */
  botToken?: string;
  loginWidgetMaxAgeSeconds: number;
}

/** Registration, and sign-in with a password (email or phone), the Telegram Login Widget or the Mini App's initData. */
export class CredentialSignIn {
  constructor(
    private readonly ds: DataSource,
    private readonly plans: PlanDirectory,
    private readonly lockout: PasswordLockout,
    private readonly sessions: Sessions,
    private readonly settings: CredentialSettings,
  ) {}

  /** Creates the account and signs in at once; the caller sends the verification link. */
  async register(input: { email: string; password: string; name?: string }): Promise<{ result: SignInResult; email: string | null }> {
    const user = await createUser(this.ds, this.plans, {
      name: input.name ?? input.email.split('@')[0],
      email: input.email,
      passwordHash: await hashPassword(input.password),
    });
    return { result: await this.sessions.start(user, true), email: user.email };
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
    return this.sessions.start(user, false);
  }

  /** Telegram Login Widget: a known Telegram id signs in, a new one gets a Starter account. */
  async signInWithTelegram(data: TelegramLoginData): Promise<SignInResult> {
    if (!this.settings.botToken) throw new SignInUnavailableError('Messenger sign-in is not configured on this server (BOT_TOKEN)');
    verifyTelegramLogin(data, this.settings.botToken, this.settings.loginWidgetMaxAgeSeconds);
    await this.spendLoginWidget(data);
    const { user, created } = await findOrCreateTelegramUser(this.ds, this.plans, data);
    return this.sessions.start(user, created);
  }

  /**
   * Telegram Mini App: the `initData` Telegram hands the dashboard opened from the bot, on the same account as the
   * bot (by Telegram id; a new one gets a Starter account). Unlike a widget payload it may sign in again while it
   * is fresh (Telegram hands the same data to every reload of the app). `startParam` is the link's `startapp`.
   */
  async signInWithTelegramWebApp(initData: string): Promise<SignInResult & { startParam?: string }> {
    if (!this.settings.botToken) throw new SignInUnavailableError('Messenger sign-in is not configured on this server (BOT_TOKEN)');
    const data = verifyWebAppInitData(initData, this.settings.botToken);
    const { user, created } = await findOrCreateTelegramUser(this.ds, this.plans, data.user);
    return { ...(await this.sessions.start(user, created)), ...(data.startParam ? { startParam: data.startParam } : {}) };
  }

  /**
   * A signed widget payload works once (durably, across instances): it is remembered by its hash until it would
   * be too old anyway. @throws LoginReplayedError
   */
  private async spendLoginWidget(data: TelegramLoginData): Promise<void> {
    const expiresAt = data.auth_date + this.settings.loginWidgetMaxAgeSeconds + 60;
    if (!(await spendOnce(this.ds, 'used_login_widgets', data.hash.toLowerCase(), expiresAt))) throw new LoginReplayedError();
  }
}
