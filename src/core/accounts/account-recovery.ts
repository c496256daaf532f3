import { DataSource } from 'typeorm';
import { UserEntity } from '../../db/entities';
import type { Logger } from '../../logger';
import { ApiKeyService } from './api-keys';
import { consumeVerificationToken, issueVerificationToken, VERIFICATION_TOKEN_TTL_SECONDS } from './email-verification';
import { PasswordLockout } from './lockout';
import type { Mailer } from './mailer';
import { hashPassword } from './passwords';
import { consumeResetToken, issueResetToken, RESET_TOKEN_TTL_SECONDS } from './password-reset';
import { RefreshTokens } from './refresh-tokens';
import { findUserById } from './users';

/** Email verification and password recovery: the links by mail, and what following them does. */
export class AccountRecovery {
  constructor(
    private readonly ds: DataSource,
    private readonly apiKeys: ApiKeyService,
    private readonly refreshTokens: RefreshTokens,
    private readonly lockout: PasswordLockout,
    private readonly mailer: Mailer,
    private readonly log: Logger,
  ) {}

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
