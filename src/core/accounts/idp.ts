import crypto from 'node:crypto';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { InvalidTokenError, SignInUnavailableError } from './errors';

export interface IdpSettings {
  issuer: string;
  /** Our OAuth client id: the only accepted `aud`. Without it identity-provider sign-in is off. */
  clientId?: string;
  jwksUrl: string;
}

export interface IdpIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  picture: string | null;
  /** Names this token for its single use: the hash of issuer and `jti`, or of the whole token when it has no `jti`. */
  tokenHash: string;
  /** Until when (epoch seconds) the token would be accepted, the clock tolerance included. */
  acceptedUntil: number;
}

/** Asymmetric algorithms only: an HS256 token "signed" with a public key, or `alg: none`, is refused. */
export const IDP_ALGORITHMS = ['RS256', 'ES256'];

const CLOCK_TOLERANCE_SECONDS = 30;

const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];

/** Verifies OpenID Connect ID tokens against the issuer's JWKS (fetched and cached by jose). */
export class IdTokenVerifier {
  private readonly keys: JWTVerifyGetKey;
  private readonly issuers: string[];

  constructor(private readonly settings: IdpSettings) {
    this.keys = createRemoteJWKSet(new URL(settings.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 });
    // Google documents both spellings of its issuer.
    this.issuers = GOOGLE_ISSUERS.includes(settings.issuer) ? GOOGLE_ISSUERS : [settings.issuer];
  }

  /** @throws SignInUnavailableError when no client id is configured, InvalidTokenError for a bad token */
  async verify(idToken: string): Promise<IdpIdentity> {
    if (!this.settings.clientId) {
      throw new SignInUnavailableError('Identity-provider sign-in is not configured on this server (OIDC_CLIENT_ID)');
    }
    try {
      const { payload } = await jwtVerify(idToken, this.keys, {
        algorithms: IDP_ALGORITHMS,
        issuer: this.issuers,
        audience: this.settings.clientId,
        requiredClaims: ['sub', 'exp', 'iat'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
      return {
        issuer: this.settings.issuer,
        subject: String(payload.sub),
        email: str(payload.email)?.toLowerCase() ?? null,
        emailVerified: payload.email_verified === true || payload.email_verified === 'true',
        name: str(payload.name),
        picture: str(payload.picture),
        tokenHash: sha256(str(payload.jti) ? `jti:${String(payload.iss)}:${String(payload.jti)}` : `token:${idToken}`),
        acceptedUntil: Number(payload.exp) + CLOCK_TOLERANCE_SECONDS,
      };
    } catch (err) {
      if (err instanceof joseErrors.JWKSTimeout || (err instanceof TypeError && /fetch/i.test(err.message))) {
        throw new SignInUnavailableError('The identity provider could not be reached; try again later');
      }
      if (err instanceof joseErrors.JOSEError) {
        throw new InvalidTokenError('Invalid identity token', 'identity');
      }
      throw err;
    }
  }
}

const sha256 = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
