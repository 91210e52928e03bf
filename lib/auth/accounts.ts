// Accounts people manage themselves, before they are signed in (docs/login.md, "Accounts people
// manage themselves"): sign-up, email verification and password reset. No answer here depends on
// whether an email has an account: a taken email signs up as a free one would (its owner is told
// through `onExistingUserSignUp`), and the requests for links run one statement either way. Mail
// hooks run after the answer, so a slow mailer shows in no response time.
import { randomBytes } from 'node:crypto'
import { sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'
import { formatRoles, rolesForNewUser, rolesOf, type RoleSetup } from '../config/roles.js'
import type { AccountSettings } from '../config/accounts.js'
import type { AccountMailHandler } from '../config/functions.js'
import type { TablegateContext } from '../context.js'
import { authProblem } from './login.js'
import { hashPassword } from './passwords.js'
import { endOtherSessions, endSessions } from './sessions.js'
import { endTokens } from './revocations.js'
import { authUser, type AuthUser } from './shapes.js'
import { endOneTimeTokens, issueOneTimeToken, issueOneTimeTokenAlone, issueToEmail, takeOneTimeToken } from './one-time-tokens.js'
import { checkPassword, normalizeEmail, UserStoreError, type ChangeRecorder, type UserRow, type UserStore } from './users.js'

/** Where the links of the mails point: the login routes' own URLs. */
export interface AccountLinks {
  verifyEmail (token: string, callbackURL: string | undefined): string
  resetPassword (token: string, callbackURL: string | undefined): string
}

export interface AccountServices {
  readonly store: UserStore
  readonly settings: AccountSettings
  readonly roles: RoleSetup
  readonly links: AccountLinks
  /** Told of a hook that threw: the answer has gone already. */
  readonly onHookError: (err: unknown, hook: string) => void
}

/** The same words as better-auth's, known email or not. */
export const RESET_REQUESTED = 'If this email exists in our system, check your email for the reset link'
/** How long a verification link lasts (better-auth's default). */
export const VERIFICATION_TTL_SECONDS = 3600

/** Runs a hook of the app after the answer, so its time is in no response. */
export function later (services: AccountServices, hook: string, run: () => void | Promise<void>): void {
  setImmediate(() => {
    Promise.resolve().then(run).catch((err: unknown) => { services.onHookError(err, hook) })
  })
}

/** The change's context with its subject as the actor: a person acting on their own account before signing in. */
function actingAs (by: TablegateContext, user: UserRow): TablegateContext {
  return { ...by, user: { id: user.id, roles: rolesOf(user.role) } }
}

function mailUser (user: UserRow, email = user.email): { id: string, email: string, name: string } {
  return { id: user.id, email, name: user.name }
}

export function emailOf (value: unknown): string {
  try {
    return normalizeEmail(value)
  } catch {
    throw authProblem('invalid-record', 'INVALID_EMAIL', 'Invalid email', { errors: [{ field: 'email', code: 'invalid-email', message: 'email must be a valid email address' }] })
  }
}

/** Refuses a new password outside the policy (better-auth's PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG). */
export function newPasswordOf (services: AccountServices, value: unknown, field: string): string {
  try {
    checkPassword(value, services.settings.passwordPolicy, field)
  } catch (err) {
    if (!(err instanceof UserStoreError)) throw err
    throw authProblem('invalid-record', err.code === 'long-password' ? 'PASSWORD_TOO_LONG' : 'PASSWORD_TOO_SHORT', err.message,
      { errors: [{ field, code: err.code, message: err.message }] })
  }
  return value as string
}

export interface SignUpInput {
  readonly email: unknown
  readonly name: unknown
  readonly password: unknown
  readonly image?: string | undefined
  readonly callbackURL?: string | undefined
}

/**
 * Makes the account and answers better-auth's `{ token: null, user }`; no session (the person signs
 * in next), because a taken email must answer the same, with a user that looks as new.
 */
export async function signUp (services: AccountServices, input: SignUpInput, by: TablegateContext): Promise<{ token: null, user: AuthUser }> {
  const { store, settings } = services
  const email = emailOf(input.email)
  const name = typeof input.name === 'string' ? input.name.trim() : ''
  if (name === '' || /\p{Cc}/u.test(name)) {
    throw authProblem('invalid-record', 'VALIDATION_ERROR', 'name is required, without control characters', { errors: [{ field: 'name', code: 'invalid-name', message: 'name is required, without control characters' }] })
  }
  const password = newPasswordOf(services, input.password, 'password')
  // The default role; the config refuses sign-up where that would be admin or none (config/accounts.ts).
  const role = formatRoles(rolesForNewUser(services.roles, undefined))
  // Hashed before the email is looked at: a taken email costs the same hash as a free one.
  const hash = await hashPassword(password)
  const outcome = await store.change(async (db, changed): Promise<SignUpOutcome> => {
    // A new account's commit does not wait for the disk, so it answers no slower than a taken email,
    // whose rows are taken back (a crash in the next fraction of a second loses it: the person signs up again).
    await query(db, sql`SET LOCAL synchronous_commit TO off`)
    // The first user is the admin, made on the host: no one signs up before there is one.
    const [someone] = await rows(db, sql`SELECT 1 FROM ${store.tables.user} LIMIT 1`)
    if (someone === undefined) throw authProblem('access-denied', 'NO_USERS', 'No user exists yet. Create the first admin on the host: tablegate user create --email <email> --generate-password')
    if (settings.signUp === 'invitation' && !(await holdsInvitation(db, store, email))) {
      throw authProblem('access-denied', 'SIGN_UP_NEEDS_INVITATION', 'Sign-up is by invitation: this email holds no pending invitation.')
    }
    const [taken] = await rows<UserRow>(db, sql`SELECT * FROM ${store.tables.user} WHERE email = ${email}`)
    // A taken email makes the same rows, under an address no one has, and takes them back: the
    // same statements as a new account, so it answers in the same time.
    if (taken !== undefined) await query(db, sql`SAVEPOINT lookalike`)
    const id = randomBytes(16).toString('base64url')
    const [user] = await rows<UserRow>(db, sql`INSERT INTO ${store.tables.user} (id, email, name, role, image, signed_up)
      VALUES (${id}, ${taken === undefined ? email : `${id}@lookalike.invalid`}, ${name}, ${role}, ${input.image ?? null}, true) RETURNING *`)
    await query(db, sql`INSERT INTO ${store.tables.account} (id, user_id, provider_id, account_id, password)
      VALUES (${randomBytes(16).toString('base64url')}, ${id}, 'credential', ${id}, ${hash})`)
    const verification = settings.emailVerification
    const token = verification === undefined ? undefined : await issueOneTimeToken(db, store.tables, 'verify-email', id, user!.email, VERIFICATION_TTL_SECONDS)
    if (taken !== undefined) {
      await query(db, sql`ROLLBACK TO SAVEPOINT lookalike`)
      return { kind: 'taken', taken }
    }
    await changed('create', undefined, user, actingAs(by, user!))
    return { kind: 'created', user: user!, token }
  })
  if (outcome.kind === 'taken') {
    const { taken } = outcome
    const hook = settings.onExistingUserSignUp
    if (hook !== undefined) later(services, 'onExistingUserSignUp', () => hook({ user: mailUser(taken) }))
    return { token: null, user: lookalike(email, name, role, input.image) }
  }
  const { user, token } = outcome
  if (token !== undefined) sendLink(services, settings.emailVerification!.onSend, 'emailVerification.onSend', user, email, token, services.links.verifyEmail(token, input.callbackURL))
  return { token: null, user: authUser(user) }
}

type SignUpOutcome = { kind: 'taken', taken: UserRow } | { kind: 'created', user: UserRow, token: string | undefined }

async function holdsInvitation (db: Queryable, store: UserStore, email: string): Promise<boolean> {
  const [found] = await rows(db, sql`SELECT 1 FROM ${store.tables.invitation} WHERE email = ${email} AND status = 'pending' AND expires_at > now() LIMIT 1`)
  return found !== undefined
}

/** What a new account would look like: the answer to a taken email. */
function lookalike (email: string, name: string, role: string, image: string | undefined): AuthUser {
  const now = new Date().toISOString()
  return {
    id: randomBytes(16).toString('base64url'),
    email,
    name,
    image: image ?? null,
    emailVerified: false,
    createdAt: now,
    updatedAt: now,
    role,
    banned: false,
    banReason: null,
    banExpires: null,
  }
}

function sendLink (services: AccountServices, onSend: AccountMailHandler, hook: string, user: UserRow, email: string, token: string, url: string): void {
  later(services, hook, () => onSend({ user: mailUser(user, email), url, token }))
}

/** `POST /request-password-reset` (a route only with `passwordReset`): the same answer, in the same time, known email or not. */
export async function requestPasswordReset (services: AccountServices, email: string, callbackURL: string | undefined): Promise<{ status: true, message: string }> {
  const reset = services.settings.passwordReset!
  const issued = await issueToEmail(services.store.pool, services.store.tables, 'reset-password', email, 'any', reset.expiresIn)
  if (issued !== undefined) sendLink(services, reset.onSend, 'passwordReset.onSend', issued.user, issued.user.email, issued.token, services.links.resetPassword(issued.token, callbackURL))
  return { status: true, message: RESET_REQUESTED }
}

/** `POST /send-verification-email` without a session: `{ status: true }` for any email; a link only to an unverified account. */
export async function sendVerificationTo (services: AccountServices, email: string, callbackURL: string | undefined): Promise<void> {
  const verification = verificationOn(services)
  const issued = await issueToEmail(services.store.pool, services.store.tables, 'verify-email', email, 'unverified', VERIFICATION_TTL_SECONDS)
  if (issued !== undefined) sendLink(services, verification.onSend, 'emailVerification.onSend', issued.user, issued.user.email, issued.token, services.links.verifyEmail(issued.token, callbackURL))
}

/** `POST /send-verification-email` from the signed-in user, for their own address. */
export async function sendOwnVerification (services: AccountServices, user: UserRow, email: string, callbackURL: string | undefined): Promise<void> {
  const verification = verificationOn(services)
  if (email !== user.email) throw authProblem('invalid-record', 'EMAIL_MISMATCH', 'Email mismatch')
  if (user.email_verified) throw authProblem('invalid-record', 'EMAIL_ALREADY_VERIFIED', 'Email is already verified')
  const token = await issueOneTimeTokenAlone(services.store.pool, services.store.tables, 'verify-email', user.id, user.email, VERIFICATION_TTL_SECONDS)
  sendLink(services, verification.onSend, 'emailVerification.onSend', user, user.email, token, services.links.verifyEmail(token, callbackURL))
}

export function verificationOn (services: AccountServices): NonNullable<AccountSettings['emailVerification']> {
  const verification = services.settings.emailVerification
  if (verification === undefined) throw authProblem('invalid-record', 'VERIFICATION_EMAIL_NOT_ENABLED', 'Verification email isn\'t enabled')
  return verification
}

/**
 * `GET /verify-email`: a verification link marks the email verified; an email-change link makes its
 * address the user's, verified. The token is spent whatever the outcome.
 */
export async function verifyEmail (services: AccountServices, token: unknown, by: TablegateContext): Promise<UserRow> {
  const { store } = services
  return await store.change(async (db, changed) => {
    const taken = await takeOneTimeToken(db, store.tables, ['verify-email', 'change-email'], token)
    if (taken === undefined) throw authProblem('unauthenticated', 'INVALID_TOKEN', 'Invalid token')
    if (taken.expired) throw authProblem('unauthenticated', 'TOKEN_EXPIRED', 'Token expired')
    const [user] = await rows<UserRow>(db, sql`SELECT * FROM ${store.tables.user} WHERE id = ${taken.userId} FOR UPDATE`)
    if (user === undefined) throw authProblem('unauthenticated', 'INVALID_TOKEN', 'Invalid token')
    if (taken.purpose === 'verify-email') {
      // A link to an address the user has since left verifies nothing.
      if (taken.email !== user.email) throw authProblem('unauthenticated', 'INVALID_TOKEN', 'Invalid token')
      if (user.email_verified) return user
    } else {
      const [other] = await rows(db, sql`SELECT 1 FROM ${store.tables.user} WHERE email = ${taken.email} AND id <> ${user.id}`)
      if (other !== undefined) throw authProblem('unauthenticated', 'INVALID_TOKEN', 'Invalid token')
    }
    const [updated] = await rows<UserRow>(db, sql`UPDATE ${store.tables.user} SET email = ${taken.email}, email_verified = true, updated_at = now()
      WHERE id = ${user.id} RETURNING *`)
    await changed('update', user, updated, actingAs(by, user))
    return updated!
  })
}

/**
 * `POST /reset-password`: the new password, and nothing issued before it lasts: every session,
 * every access token (through the revocation rows) and every other link of the user end with it.
 */
export async function resetPassword (services: AccountServices, token: unknown, newPassword: unknown, by: TablegateContext): Promise<UserRow> {
  const { store } = services
  const password = newPasswordOf(services, newPassword, 'newPassword')
  const hash = await hashPassword(password)
  return await store.change(async (db, changed) => {
    const taken = await takeOneTimeToken(db, store.tables, ['reset-password'], token)
    if (taken === undefined || taken.expired) throw authProblem('invalid-record', 'INVALID_TOKEN', 'Invalid token')
    const [user] = await rows<UserRow>(db, sql`SELECT * FROM ${store.tables.user} WHERE id = ${taken.userId} FOR UPDATE`)
    if (user === undefined) throw authProblem('invalid-record', 'INVALID_TOKEN', 'Invalid token')
    return await setPassword(db, store, user, hash, changed, actingAs(by, user), 'all')
  })
}

/**
 * A password change: the new hash, and every link of the user ended; `ending` says which sessions
 * end with it (`all`, all but one, or none), and with any, every access token issued before it.
 */
export async function setPassword (db: Queryable, store: UserStore, user: UserRow, hash: string, changed: ChangeRecorder, by: TablegateContext, ending: 'all' | 'none' | { readonly keep: string }): Promise<UserRow> {
  await query(db, sql`UPDATE ${store.tables.account} SET password = ${hash}, updated_at = now() WHERE user_id = ${user.id} AND provider_id = 'credential'`)
  await endOneTimeTokens(db, store.tables, user.id)
  if (ending !== 'none') {
    await (ending === 'all' ? endSessions(db, store.tables, user.id) : endOtherSessions(db, store.tables, user.id, ending.keep))
    await endTokens(db, store.tables, user.id)
  }
  const [updated] = await rows<UserRow>(db, sql`UPDATE ${store.tables.user} SET updated_at = now() WHERE id = ${user.id} RETURNING *`)
  await changed('update', user, updated, by)
  return updated!
}
