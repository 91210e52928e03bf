// Who calls a login route: the session cookie (signed, HttpOnly) and, on the admin routes, an
// admin's bearer token or session cookie (docs/login.md, "Routes"). Shared by the session and admin
// routes.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { UserStore } from '../../lib/auth/users.js'
import { liveSession, SESSION_TTL_SECONDS, type SessionRow } from '../../lib/auth/sessions.js'
import type { UserRow } from '../../lib/auth/store/migrate.js'
import { authProblem } from '../../lib/auth/login.js'
import { rolesOf } from '../../lib/config/roles.js'
import type { CallerUser } from '../../lib/principal.js'
import type { Verifier } from '../../lib/auth/verifier.js'
import { sessionCookieName } from '../../lib/auth/session-cookie.js'

export interface SessionCookies {
  /** The session token the request's cookie carries, when its signature holds. */
  token (request: FastifyRequest): string | undefined
  /** The live session behind the request's cookie, with its user. */
  session (request: FastifyRequest): Promise<{ session: SessionRow, user: UserRow } | undefined>
  set (reply: FastifyReply, token: string, remember: boolean): void
  clear (reply: FastifyReply): void
}

export function sessionCookies (users: UserStore, publicUrl: string): SessionCookies {
  const secure = publicUrl.startsWith('https:')
  const name = sessionCookieName(publicUrl)
  const attributes = { signed: true, httpOnly: true, sameSite: 'lax', secure, path: '/' } as const
  const token = (request: FastifyRequest): string | undefined => {
    const raw = request.cookies[name]
    if (raw === undefined) return undefined
    const unsigned = request.unsignCookie(raw)
    return unsigned.valid && unsigned.value !== null ? unsigned.value : undefined
  }
  return {
    token,
    session: async (request) => {
      const value = token(request)
      return value === undefined ? undefined : await liveSession(users.pool, users.tables, value)
    },
    // rememberMe: false (better-auth) makes it a browser-session cookie; the session itself still expires.
    set: (reply, value, remember) => { reply.setCookie(name, value, { ...attributes, ...(remember ? { maxAge: SESSION_TTL_SECONDS } : {}) }) },
    clear: (reply) => { reply.clearCookie(name, { ...attributes, signed: false }) },
  }
}

/**
 * The caller of an admin route, from an admin's bearer token or session cookie; it also becomes
 * `request.ctx.user`, so the write hooks of the change see who made it. Both are read as the user
 * store has them now: a token against revocations read at this moment (an admin banned, demoted
 * or removed a second ago cannot undo it), a cookie with its session and user row.
 */
export async function adminRouteCaller (request: FastifyRequest, verifier: Verifier, cookies: SessionCookies): Promise<CallerUser> {
  let caller: CallerUser
  if (request.headers.authorization !== undefined) {
    await verifier.refreshRevocations()
    caller = (await verifier.authenticate(request.headers.authorization)).user
  } else {
    const found = await cookies.session(request)
    if (found === undefined) throw authProblem('unauthenticated', 'UNAUTHORIZED', 'Sign in as an admin, or send an admin bearer token.')
    caller = { id: found.user.id, roles: rolesOf(found.user.role) }
  }
  request.ctx.user = caller
  return caller
}
