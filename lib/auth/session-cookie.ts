// The session cookie as better-auth names it, and the key that signs it: the login routes set it,
// and /api/docs accepts it (docs/meta.md, "The docs in a browser"), so both read it the same way.
import { deriveKey } from '../crypto.js'

const SESSION_COOKIE = 'better-auth.session_token'

/** `__Secure-` on https, as browsers require for a cookie marked Secure under that prefix. */
export function sessionCookieName (publicUrl: string): string {
  return publicUrl.startsWith('https:') ? `__Secure-${SESSION_COOKIE}` : SESSION_COOKIE
}

/** The secret @fastify/cookie signs the session cookie with. */
export function cookieSecret (authSecret: string): string {
  return deriveKey(authSecret, 'cookie').export().toString('base64url')
}
