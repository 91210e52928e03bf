// Access tokens: EdDSA JWTs carrying `sub`, `role`, `iss` and `aud` (the public URL).
import { SignJWT } from 'jose'
import type { SigningKey } from './keys.js'

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60
export const MAX_MINTED_TTL_SECONDS = 24 * 60 * 60

export interface IssuedToken {
  readonly token: string
  readonly expiresAt: string
}

export interface TokenSubject {
  readonly id: string
  readonly role: string
}

export async function issueAccessToken (key: SigningKey, subject: TokenSubject, issuer: string, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS): Promise<IssuedToken> {
  const now = Math.floor(Date.now() / 1000)
  const exp = now + ttlSeconds
  const token = await new SignJWT({ role: subject.role })
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })
    .setSubject(subject.id)
    .setIssuer(issuer)
    .setAudience(issuer)
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .sign(key.privateKey)
  return { token, expiresAt: new Date(exp * 1000).toISOString() }
}
