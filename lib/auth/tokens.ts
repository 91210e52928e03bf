// Access tokens: EdDSA JWTs carrying `sub`, `role`, `iss` and `aud` (the public URL), and with
// organizations the session's active one as `org: { id, role }` (docs/organizations.md, "Tokens").
// Without it the payload is exactly what it was before organizations.
import { SignJWT } from 'jose'
import type { SigningKey } from './keys.js'

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60
export const MAX_MINTED_TTL_SECONDS = 24 * 60 * 60

export interface IssuedToken {
  readonly token: string
  readonly expiresAt: string
}

/** The `org` claim: the active organization and the member's organization role(s), comma separated as stored. */
export interface OrganizationClaim {
  readonly id: string
  readonly role: string
}

export interface TokenSubject {
  readonly id: string
  readonly role: string
}

export async function issueAccessToken (key: SigningKey, subject: TokenSubject, issuer: string, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS, org?: OrganizationClaim): Promise<IssuedToken> {
  const now = Math.floor(Date.now() / 1000)
  const exp = now + ttlSeconds
  const claims = org === undefined ? { role: subject.role } : { role: subject.role, org: { id: org.id, role: org.role } }
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })
    .setSubject(subject.id)
    .setIssuer(issuer)
    .setAudience(issuer)
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .sign(key.privateKey)
  return { token, expiresAt: new Date(exp * 1000).toISOString() }
}
