// Email and password sign-in, and the mapping of user-store refusals to problems. Problems of the
// login routes also carry better-auth's `code` and `message`, which its client reads.
import { problem, withExtras, type Problem, type ProblemSlug } from '../problems.js'
import { sql } from '../sql/sql.js'
import { rows } from '../db/query.js'
import { decoyVerify, verifyPassword } from './passwords.js'
import { createSession, type SessionMeta } from './sessions.js'
import { normalizeEmail, UserStoreError, type UserRow, type UserStore } from './users.js'

export function authProblem (slug: Parameters<typeof problem>[0], code: string, detail: string, extras: Record<string, unknown> = {}, headers?: Record<string, string>): Problem {
  return problem(slug, detail, { code, message: detail, ...extras }, headers)
}

// better-auth's codes for refusals no login route words itself (the body's schema, the parser,
// the verifier); any other slug becomes its upper-case form (`payload-too-large` → PAYLOAD_TOO_LARGE).
const AUTH_CODES: Partial<Record<ProblemSlug, string>> = {
  'unauthenticated': 'UNAUTHORIZED',
  'invalid-record': 'VALIDATION_ERROR',
  'invalid-parameter': 'VALIDATION_ERROR',
}

/** The problem with better-auth's `code` and `message`, which every answer of the login routes carries. */
export function withAuthCode (p: Problem): Problem {
  if (p.extras.code !== undefined) return p
  return withExtras(p, { code: AUTH_CODES[p.slug] ?? p.slug.toUpperCase().replace(/-/g, '_'), message: p.detail })
}

const INVALID_CREDENTIALS = 'Invalid email or password.'

export interface SignedIn {
  readonly user: UserRow
  readonly sessionToken: string
  readonly expiresAt: Date
}

/** With `emailVerification.required`, a user who signed up has no session nor token before verifying (better-auth's EMAIL_NOT_VERIFIED). */
export function refuseUnverified (user: UserRow, required: boolean): void {
  if (required && user.signed_up && !user.email_verified) throw authProblem('access-denied', 'EMAIL_NOT_VERIFIED', 'Email not verified')
}

export async function signInWithEmail (store: UserStore, email: unknown, password: unknown, meta: SessionMeta, verificationRequired = false): Promise<SignedIn> {
  if (!(await store.hasUsers())) {
    throw authProblem('unauthenticated', 'NO_USERS', 'No user exists yet. Create the first admin on the host: tablegate user create --email <email> --generate-password')
  }
  let normalized: string
  try {
    normalized = normalizeEmail(email)
  } catch {
    throw authProblem('unauthenticated', 'INVALID_EMAIL_OR_PASSWORD', INVALID_CREDENTIALS)
  }
  const given = typeof password === 'string' ? password : ''
  const [found] = await rows<UserRow & { password: string | null }>(store.pool, sql`SELECT u.*, a.password FROM ${store.tables.user} u
    JOIN ${store.tables.account} a ON a.user_id = u.id AND a.provider_id = 'credential' WHERE u.email = ${normalized}`)
  const valid = found?.password != null ? await verifyPassword(found.password, given) : await decoyVerify(given)
  if (found === undefined || !valid) throw authProblem('unauthenticated', 'INVALID_EMAIL_OR_PASSWORD', INVALID_CREDENTIALS)
  if (found.banned) throw authProblem('access-denied', 'BANNED_USER', 'This account is banned. Ask an administrator.')
  refuseUnverified(found, verificationRequired)
  const { password: _hash, ...user } = found
  const session = await createSession(store.pool, store.tables, user.id, meta)
  return { user, sessionToken: session.token, expiresAt: session.expiresAt }
}

// better-auth 1.7's codes (core BASE_ERROR_CODES and the admin plugin's), where it has one.
const STORE_CODES: Record<UserStoreError['code'], string> = {
  'invalid-email': 'INVALID_EMAIL',
  'invalid-name': 'VALIDATION_ERROR',
  'weak-password': 'PASSWORD_TOO_SHORT',
  'long-password': 'PASSWORD_TOO_LONG',
  'invalid-role': 'YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE',
  'role-required': 'ROLE_REQUIRED',
  'email-taken': 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL',
  'unknown-user': 'USER_NOT_FOUND',
  'last-admin': 'LAST_ADMIN',
  'banned': 'BANNED_USER',
  'invalid-ttl': 'INVALID_TTL',
}

export function userStoreProblem (err: UserStoreError): Problem {
  const code = STORE_CODES[err.code]
  switch (err.code) {
    case 'last-admin':
      return authProblem('conflict', code, err.message)
    case 'unknown-user':
      return authProblem('not-found', code, err.message)
    default:
      return authProblem('invalid-record', code, err.message, {
        errors: [{ field: err.field ?? 'body', code: err.code, message: err.message }],
      })
  }
}
