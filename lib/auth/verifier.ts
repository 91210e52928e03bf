// Bearer token → `{ user: { id, roles }, tenant?, org? }`, or a 401 problem. Works with the built-in auth
// server (keys from its store) and standalone (`jwksUrl` or `keys`). Only asymmetric algorithms
// unless `algorithms` says otherwise, so a public key can never be used as an HMAC secret.
import { errors as joseErrors, jwtVerify, type JWK, type JWTPayload } from 'jose'
import { problem, type Problem } from '../problems.js'
import { createKeySet, KeySetUnavailableError, type KeySet, type KeySetOptions, type VerificationKey } from './key-set.js'
import { rolesOf } from '../config/roles.js'
import { BoundedCache, type CacheStats } from '../cache.js'
import type { CallerOrganization, Principal } from '../principal.js'
import type { Revocation, Revocations } from './revocations.js'

export type { Principal }

export const ASYMMETRIC_ALGORITHMS = ['EdDSA', 'Ed25519', 'ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']

export interface VerifierOptions {
  readonly jwksUrl?: string | undefined
  readonly keys?: readonly JWK[] | undefined
  /** Key source of the built-in auth server. */
  readonly loadKeys?: (() => Promise<JWK[]>) | undefined
  readonly issuer?: string | undefined
  readonly audience?: string | undefined
  readonly rolesClaim?: string | undefined
  readonly tenantClaim?: string | undefined
  readonly tenant?: string | undefined
  readonly algorithms?: readonly string[] | undefined
  readonly cache?: KeySetOptions | undefined
  readonly now?: (() => number) | undefined
  /** How many of the last verified tokens to remember, at most twice as many (default 10,000; 0 turns the cache off). */
  readonly verifiedTokens?: number | undefined
  /** Bans, deletions and role changes since tokens were issued (the built-in auth server's). */
  readonly revocations?: Revocations | undefined
  /**
   * The built-in login with organizations: the signed `org` claim ({ id, role }) is the caller's
   * active organization and its id their tenant. Otherwise the claim is ignored.
   */
  readonly organizations?: boolean | undefined
}

interface Verified {
  readonly principal: Principal
  readonly expiresAt: number
  /** `iat` in milliseconds; 0 when the token has none, so every revocation applies to it. */
  readonly issuedAt: number
  /** The key that verified it: the entry holds while the key set holds the key. */
  readonly key: VerificationKey
  /** The principal as a role change limits it, made once per change. */
  limited?: { readonly by: Revocation, readonly principal: Principal }
}


export interface Verifier {
  verify (token: string): Promise<Principal>
  /** Verifies an `Authorization` header value; a missing or non-Bearer header is a 401 too. */
  authenticate (authorization: string | undefined): Promise<Principal>
  /**
   * Reads the bans, deletions and role changes made since the last poll now: for decisions that
   * must not wait for it (the admin routes), and so that this process applies its own changes at once.
   */
  refreshRevocations (): Promise<void>
  readonly keySet: KeySet
  /** The verified-token cache's lookups, for metrics. */
  readonly verifiedTokens: CacheStats
}

function unauthenticated (detail: string, error?: string): Problem {
  const challenge = error === undefined ? 'Bearer' : `Bearer error="${error}"`
  return problem('unauthenticated', detail, {}, { 'www-authenticate': challenge })
}

const INVALID = 'The access token is invalid.'
// Which claim, never its value: a token minted for another URL (often a CLI run without the
// server's AUTH_URL) is then found at once.
const CLAIM_MISMATCH = {
  iss: 'The access token is signed by a trusted key but its iss (issuer) claim is not the issuer this server expects (its publicUrl, AUTH_URL, or verifier.issuer).',
  aud: 'The access token is signed by a trusted key but its aud (audience) claim is not the audience this server expects (its publicUrl, AUTH_URL, or verifier.audience).',
} as const

async function fetchJwks (url: string): Promise<JWK[]> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000), headers: { accept: 'application/json' } })
  if (!response.ok) throw new Error(`JWKS request failed with status ${response.status}`)
  const body = await response.json() as { keys?: unknown }
  if (!Array.isArray(body.keys)) throw new Error('JWKS response has no keys array')
  return body.keys as JWK[]
}

function rolesFrom (claim: unknown): string[] {
  if (typeof claim === 'string') return rolesOf(claim)
  if (Array.isArray(claim)) return claim.filter((r): r is string => typeof r === 'string')
  return []
}

/** The `org` claim our own tokens carry (or a session's membership); anything else in its place is no organization. */
export function callerOrganization (claim: unknown): CallerOrganization | undefined {
  if (typeof claim !== 'object' || claim === null) return undefined
  const { id, role } = claim as Record<string, unknown>
  if (typeof id !== 'string' || id === '' || typeof role !== 'string') return undefined
  const roles = rolesOf(role)
  return roles.length === 0 ? undefined : { id, role: roles.join(','), roles }
}

export function createVerifier (options: VerifierOptions): Verifier {
  const { jwksUrl, keys, loadKeys } = options
  const source = loadKeys ?? (jwksUrl !== undefined ? async () => await fetchJwks(jwksUrl) : keys !== undefined ? async () => [...keys] : undefined)
  if (source === undefined) throw new Error('verifier: give jwksUrl or keys')
  const now = options.now ?? Date.now
  const keySet = createKeySet(source, { now, ...options.cache })
  const algorithms = [...(options.algorithms ?? ASYMMETRIC_ALGORITHMS)]
  const rolesClaim = options.rolesClaim ?? 'role'

  // Tokens already verified, keyed by the whole token: a tampered token is another key, so it can
  // never match. An entry lives until the token's exp and while its signing key is in the set.
  const verified = new BoundedCache<Verified>(options.verifiedTokens ?? 10_000)
  const remember = options.verifiedTokens !== 0
  const { revocations } = options

  // A token issued before its user was banned or deleted is void; one issued before a role
  // change holds no role the user has lost, and one issued before a membership change acts with
  // the organization roles the change left: with none (removed), no organization and no tenant.
  const current = (entry: Verified): Principal => {
    const revoked = revocations?.lookup(entry.principal.user.id)
    if (revoked === undefined) return entry.principal
    if (revoked.endedBefore !== undefined && entry.issuedAt < revoked.endedBefore) throw unauthenticated('The access token was revoked.', 'invalid_token')
    const rolesLimited = revoked.rolesSince !== undefined && entry.issuedAt < revoked.rolesSince
    const { org } = entry.principal
    const membership = org === undefined ? undefined : revoked.organizations?.get(org.id)
    const orgLimited = membership !== undefined && entry.issuedAt < membership.since
    if (!rolesLimited && !orgLimited) return entry.principal
    if (entry.limited?.by !== revoked) {
      const { user, tenant } = entry.principal
      const limitedUser = rolesLimited ? { id: user.id, roles: user.roles.filter((r) => revoked.roles.includes(r)) } : user
      // The membership as the change left it: never more than the member holds since.
      const orgRoles = orgLimited ? membership.roles : undefined
      const principal: Principal = orgRoles === undefined
        ? { user: limitedUser, tenant, org }
        : orgRoles.length === 0
          ? { user: limitedUser, tenant: undefined }
          : { user: limitedUser, tenant, org: { id: org!.id, role: orgRoles.join(','), roles: orgRoles } }
      entry.limited = { by: revoked, principal }
    }
    return entry.limited.principal
  }

  const verify = async (token: string): Promise<Principal> => {
    const hit = remember ? verified.get(token) : undefined
    if (hit !== undefined) {
      if (now() < hit.expiresAt && await keySet.holds(hit.key)) return current(hit)
      verified.delete(token)
    }
    let payload: JWTPayload
    let key: VerificationKey | undefined
    try {
      ({ payload } = await jwtVerify(token, async (header) => {
        key = await keySet.keyFor(header)
        if (key === undefined) throw new joseErrors.JWKSNoMatchingKey()
        return key
      }, {
        algorithms,
        issuer: options.issuer,
        audience: options.audience,
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(now()),
      }))
    } catch (err) {
      if (err instanceof KeySetUnavailableError) throw problem('service-unavailable', 'The signing keys cannot be loaded right now. Try again shortly.')
      if (err instanceof joseErrors.JWTExpired) throw unauthenticated('The access token has expired.', 'invalid_token')
      if (err instanceof joseErrors.JWTClaimValidationFailed && (err.claim === 'iss' || err.claim === 'aud')) {
        throw unauthenticated(CLAIM_MISMATCH[err.claim], 'invalid_token')
      }
      throw unauthenticated(INVALID, 'invalid_token')
    }
    // No clock leeway: a token issued in the future is as suspicious as an expired one.
    if (typeof payload.iat === 'number' && payload.iat * 1000 > now()) throw unauthenticated(INVALID, 'invalid_token')
    if (typeof payload.sub !== 'string' || payload.sub === '') throw unauthenticated(INVALID, 'invalid_token')
    const claimedTenant = options.tenantClaim === undefined ? undefined : payload[options.tenantClaim]
    const user = { id: payload.sub, roles: rolesFrom(payload[rolesClaim]) }
    const org = options.organizations === true ? callerOrganization(payload.org) : undefined
    const principal: Principal = org !== undefined
      ? { user, tenant: org.id, org }
      : { user, tenant: options.tenant ?? (typeof claimedTenant === 'string' && claimedTenant !== '' ? claimedTenant : undefined) }
    const entry: Verified = { principal, expiresAt: (payload.exp as number) * 1000, issuedAt: typeof payload.iat === 'number' ? payload.iat * 1000 : 0, key: key as VerificationKey }
    if (remember) verified.set(token, entry)
    return current(entry)
  }

  return {
    keySet,
    verifiedTokens: verified,
    verify,
    refreshRevocations: async () => { await revocations?.refresh?.() },
    authenticate: async (authorization) => {
      const match = /^Bearer +([A-Za-z0-9\-_.~+/]+=*) *$/i.exec(authorization ?? '')
      if (match === null) {
        throw authorization === undefined || authorization === ''
          ? unauthenticated('An access token is required: send Authorization: Bearer <token>.')
          : unauthenticated('The Authorization header must be Bearer <token>.', 'invalid_request')
      }
      return await verify(match[1]!)
    },
  }
}
