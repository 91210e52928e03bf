// A browser's caller on /api/docs (docs/meta.md, "The docs in a browser"): a bearer token as
// anywhere else, or a signed-in session cookie, verified against the session store. Either way the
// page's "try it" calls need a bearer token: the one sent, or one minted for the session's user (as
// GET /api/auth/token would).
import { callerOrganization, type Principal, type Verifier } from './verifier.js'
import type { UserStore } from './users.js'
import { liveSession } from './sessions.js'
import { issueAccessToken } from './tokens.js'
import { activeOrganization } from './active-organization.js'
import { rolesOf } from '../config/roles.js'

export interface BrowserCaller {
  readonly principal: Principal
  /** A bearer token of this caller for the page's own requests. */
  token (): Promise<string>
}

export async function bearerCaller (verifier: Verifier, authorization: string | undefined): Promise<BrowserCaller> {
  const principal = await verifier.authenticate(authorization)
  const token = (authorization ?? '').replace(/^\s*bearer\s+/i, '').trim()
  return { principal, token: async () => token }
}

/**
 * The caller of a live session token (already unsigned from its cookie); undefined when there is
 * none. With organizations, in the session's active organization, as its token would be.
 */
export async function sessionCaller (users: UserStore, sessionToken: string, tenant: string | undefined, issuer: string, organizations = false): Promise<BrowserCaller | undefined> {
  const found = await liveSession(users.pool, users.tables, sessionToken)
  if (found === undefined) return undefined
  const { user } = found
  const org = organizations ? callerOrganization(await activeOrganization(users.pool, users.tables, found.session.id)) : undefined
  const caller = { id: user.id, roles: rolesOf(user.role) }
  return {
    principal: org === undefined ? { user: caller, tenant } : { user: caller, tenant: org.id, org },
    token: async () => (await issueAccessToken(await users.keys.current(), user, issuer, undefined, org && { id: org.id, role: org.role })).token,
  }
}
