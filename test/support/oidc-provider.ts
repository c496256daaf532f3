import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export interface IdTokenOptions {
  aud?: string;
  iss?: string;
  /** Seconds from now until `exp` (600 by default; negative for an expired token). */
  expiresIn?: number;
  key?: PrivateKey;
  sub?: string;
  /** A `jti` claim (a fresh one by default, as Google sets; `null` leaves it out). */
  jti?: string | null;
  claims?: Record<string, unknown>;
}

/** A local identity provider: its JWKS over HTTP on loopback, and ID tokens signed with its key. */
export interface OidcProvider {
  issuer: string;
  clientId: string;
  jwksUrl: string;
  /** The env that points the service at this provider. */
  env: Record<string, string>;
  /** A key the JWKS does not publish. */
  foreignKey: PrivateKey;
  idToken(options?: IdTokenOptions): Promise<string>;
  close(): Promise<void>;
}

export async function startOidcProvider(issuer = 'https://idp.test', clientId = 'our-client-id.apps.test'): Promise<OidcProvider> {
  const pair = await generateKeyPair('RS256');
  const foreignKey = (await generateKeyPair('RS256')).privateKey;
  const publicJwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server = http.createServer((_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/certs`;
  return {
    issuer,
    clientId,
    jwksUrl,
    env: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_JWKS_URL: jwksUrl },
    foreignKey,
    async idToken(o: IdTokenOptions = {}) {
      const now = Math.floor(Date.now() / 1000);
      const jwt = new SignJWT({ email_verified: true, ...o.claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(o.iss ?? issuer)
        .setAudience(o.aud ?? clientId)
        .setSubject(o.sub ?? `sub-${crypto.randomUUID()}`)
        .setIssuedAt(now - 10)
        .setExpirationTime(now + (o.expiresIn ?? 600));
      if (o.jti !== null) jwt.setJti(o.jti ?? crypto.randomUUID());
      return jwt.sign(o.key ?? pair.privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
