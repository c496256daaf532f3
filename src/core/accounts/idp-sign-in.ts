import { DataSource } from 'typeorm';
import { UserEntity } from '../../db/entities';
import type { Logger } from '../../logger';
import { inTransaction } from '../../db/transaction';
import { ApiKeyService } from './api-keys';
import { AccountConflictError, LoginReplayedError } from './errors';
import { IdTokenVerifier, IdpIdentity } from './idp';
import { PlanDirectory } from './plans';
import type { Sessions, SignInResult } from './sessions';
import { spendOnce } from './single-use';
import { takeOverUnverifiedAccount } from './takeover';
import { createUser } from './users';

const displayNameOf = (identity: IdpIdentity): string => identity.name ?? identity.email?.split('@')[0] ?? 'User';
const pictureOf = (identity: IdpIdentity): string | null =>
  identity.picture && /^https?:\/\//i.test(identity.picture) ? identity.picture : null;

/** Sign-in with an identity provider's ID token: sign in, link, take over an unproven account, or create one. */
export class IdpSignIn {
  constructor(
    private readonly ds: DataSource,
    private readonly plans: PlanDirectory,
    private readonly apiKeys: ApiKeyService,
    private readonly idTokens: IdTokenVerifier,
    private readonly sessions: Sessions,
    private readonly log: Logger,
  ) {}

  /**
   * OpenID Connect ID token, accepted once (on any instance): a known identity signs in; a verified email of an existing account links the
   * identity to it when that account's email is verified too, and takes the account over when it is not (the
   * email was never proven: whoever registered it loses the password, sessions and API keys); otherwise a
   * Starter account is created.
   */
  async signIn(idToken: string): Promise<SignInResult> {
    const identity = await this.idTokens.verify(idToken);
    if (!(await spendOnce(this.ds, 'used_id_tokens', identity.tokenHash, identity.acceptedUntil))) {
      throw new LoginReplayedError('This identity token was already used: sign in with the identity provider again');
    }
    const repo = this.ds.getRepository(UserEntity);
    const known = await repo.findOneBy({ idpIssuer: identity.issuer, idpSubject: identity.subject });
    if (known) return this.sessions.start(known, false);

    const verifiedEmail = identity.emailVerified ? identity.email : null;
    if (verifiedEmail) {
      const byEmail = await repo.findOneBy({ email: verifiedEmail });
      if (byEmail) {
        if (byEmail.idpSubject !== null) {
          throw new AccountConflictError('identity', 'This email belongs to an account linked to another identity');
        }
        if (byEmail.emailVerifiedAt) {
          await repo.update({ id: byEmail.id }, { idpIssuer: identity.issuer, idpSubject: identity.subject });
          return this.sessions.start({ ...byEmail, idpIssuer: identity.issuer, idpSubject: identity.subject }, false);
        }
        return this.sessions.start(await this.takeOver(byEmail.id, identity), false);
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
      return this.sessions.start(user, true);
    } catch (err) {
      const raced =
        err instanceof AccountConflictError ? await repo.findOneBy({ idpIssuer: identity.issuer, idpSubject: identity.subject }) : null;
      if (raced) return this.sessions.start(raced, false);
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
}
