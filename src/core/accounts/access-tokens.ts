import crypto from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { InvalidTokenError } from './errors';

/** Web access tokens live 15 minutes (`expires_in` = 900). */
export const ACCESS_TOKEN_TTL_SECONDS = 900;

/** Refused past this age even if `exp` says otherwise (a token minted with a far `exp` by a leaked key). */
export const ACCESS_TOKEN_MAX_AGE_SECONDS = ACCESS_TOKEN_TTL_SECONDS;

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISSUER = 'nebula-gen';
const AUDIENCE = 'nebula-gen:api';

export interface AccessClaims {
  userId: number;
  /** The refresh-token family (sign-in session) the token belongs to: logging out ends it at once. */
  sessionId: string;
}

/** HS256 JWTs signed with the server secret; only HS256 is accepted on verification (no `alg: none`). */
export class AccessTokens {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(claims: AccessClaims): Promise<{ token: string; expiresIn: number }> {
    const iat = Math.floor(this.now() / 1000);
    const token = await new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(claims.userId))
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
      .setJti(crypto.randomUUID())
      .sign(this.key);
    return { token, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
  }

  /** @throws InvalidTokenError */
  async verify(token: string): Promise<AccessClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        currentDate: new Date(this.now()),
        requiredClaims: ['sub', 'exp', 'iat', 'sid'],
        maxTokenAge: ACCESS_TOKEN_MAX_AGE_SECONDS,
      });
      const userId = Number(payload.sub);
      if (!Number.isSafeInteger(userId) || userId <= 0 || typeof payload.sid !== 'string' || !SESSION_ID.test(payload.sid)) {
        throw new InvalidTokenError();
      }
      return { userId, sessionId: payload.sid };
    } catch (err) {
      if (err instanceof InvalidTokenError || err instanceof joseErrors.JOSEError) throw new InvalidTokenError();
      throw err;
    }
  }
}
