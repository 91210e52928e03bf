// What a signed-in user does to their own account (docs/login.md, "Accounts people manage
// themselves"): password, email, name and image, their sessions, and the account itself. Each change
// runs the write hooks in the store's transaction, as the admin's changes do.
import { sql } from '../sql/sql.js'
import { rows } from '../db/query.js'
import type { TablegateContext } from '../context.js'
import { authProblem, userStoreProblem } from './login.js'
import { decoyVerify, hashPassword, verifyPassword } from './passwords.js'
import { endOtherSessions, type SessionRow } from './sessions.js'
import { endTokens } from './revocations.js'
import { issueOneTimeTokenAlone } from './one-time-tokens.js'
import { authSession, type AuthSession } from './shapes.js'
import { emailOf, later, newPasswordOf, setPassword, VERIFICATION_TTL_SECONDS, verificationOn, type AccountServices } from './accounts.js'
import { UserStoreError, type UserRow } from './users.js'

/** The caller of an own-account route: their live session and its user. */
export interface Own {
  readonly session: SessionRow
  readonly user: UserRow
  readonly by: TablegateContext
}

/** Checks the caller's current password (better-auth's INVALID_PASSWORD), at the cost of a verify either way. */
async function confirmPassword (services: AccountServices, user: UserRow, given: unknown): Promise<void> {
  const password = typeof given === 'string' ? given : ''
  const [account] = await rows<{ password: string | null }>(services.store.pool, sql`SELECT password FROM ${services.store.tables.account}
    WHERE user_id = ${user.id} AND provider_id = 'credential'`)
  const valid = account?.password != null ? await verifyPassword(account.password, password) : await decoyVerify(password)
  if (!valid) throw authProblem('invalid-record', 'INVALID_PASSWORD', 'Invalid password')
}

/**
 * `POST /change-password`: the current password, then the new one. With `revokeOtherSessions` every
 * other session ends, and every access token issued before the change (this browser mints a new one).
 */
export async function changePassword (services: AccountServices, own: Own, currentPassword: unknown, newPassword: unknown, revokeOtherSessions: boolean): Promise<UserRow> {
  const password = newPasswordOf(services, newPassword, 'newPassword')
  await confirmPassword(services, own.user, currentPassword)
  const hash = await hashPassword(password)
  return await services.store.change(async (db, changed) => {
    const [user] = await rows<UserRow>(db, sql`SELECT * FROM ${services.store.tables.user} WHERE id = ${own.user.id} FOR UPDATE`)
    if (user === undefined) throw authProblem('unauthenticated', 'UNAUTHORIZED', 'Sign in first: no valid session cookie was sent.')
    return await setPassword(db, services.store, user, hash, changed, own.by, revokeOtherSessions ? { keep: own.session.id } : 'none')
  })
}

/**
 * `POST /change-email`: a link to the new address, which becomes the user's when it is followed.
 * An address another account holds gets no link, and the same answer.
 */
export async function changeEmail (services: AccountServices, own: Own, newEmail: unknown, callbackURL: string | undefined): Promise<void> {
  const verification = verificationOn(services)
  const email = emailOf(newEmail)
  if (email === own.user.email) throw authProblem('invalid-record', 'EMAIL_IS_THE_SAME', 'Email is the same')
  const { store } = services
  const [taken] = await rows(store.pool, sql`SELECT 1 FROM ${store.tables.user} WHERE email = ${email}`)
  if (taken !== undefined) return
  // Its commit does not wait for the disk, so a free address answers no slower than a taken one.
  const token = await issueOneTimeTokenAlone(store.pool, store.tables, 'change-email', own.user.id, email, VERIFICATION_TTL_SECONDS)
  const url = services.links.verifyEmail(token, callbackURL)
  const user = { id: own.user.id, email, name: own.user.name }
  later(services, 'emailVerification.onSend', () => verification.onSend({ user, url, token }))
}

/** `POST /update-user`: name and image; the email changes only through `/change-email`. */
export async function updateUser (services: AccountServices, own: Own, body: { name?: unknown, image?: unknown, email?: unknown }): Promise<UserRow> {
  if (body.email !== undefined) throw authProblem('invalid-record', 'EMAIL_CAN_NOT_BE_UPDATED', 'Email can not be updated')
  if (body.name === undefined && body.image === undefined) throw authProblem('invalid-record', 'VALIDATION_ERROR', 'No fields to update')
  const name = typeof body.name === 'string' ? body.name.trim() : undefined
  if (name !== undefined && (name === '' || /\p{Cc}/u.test(name))) {
    throw authProblem('invalid-record', 'VALIDATION_ERROR', 'name must not be empty nor hold control characters', { errors: [{ field: 'name', code: 'invalid-name', message: 'name must not be empty nor hold control characters' }] })
  }
  const image = body.image === undefined ? undefined : body.image as string | null
  if (typeof image === 'string' && !/^https?:\/\/\S+$/.test(image)) {
    throw authProblem('invalid-record', 'VALIDATION_ERROR', 'image must be an http(s) URL, or null', { errors: [{ field: 'image', code: 'invalid-image', message: 'image must be an http(s) URL, or null' }] })
  }
  const { store } = services
  return await store.change(async (db, changed) => {
    const [user] = await rows<UserRow>(db, sql`SELECT * FROM ${store.tables.user} WHERE id = ${own.user.id} FOR UPDATE`)
    const [updated] = await rows<UserRow>(db, sql`UPDATE ${store.tables.user} SET
        name = ${name ?? user!.name}, image = ${image === undefined ? user!.image : image}, updated_at = now()
      WHERE id = ${own.user.id} RETURNING *`)
    await changed('update', user, updated, own.by)
    return updated!
  })
}

/**
 * better-auth's session list. Its `token` is the session's id, not the cookie's secret (which the
 * store keeps only hashed): `/revoke-session` takes it back.
 */
export async function listSessions (services: AccountServices, own: Own, organizations: boolean): Promise<Array<AuthSession & { token: string }>> {
  const sessions = await rows<SessionRow>(services.store.pool, sql`SELECT id, user_id, expires_at, created_at, ip_address, user_agent, active_organization_id
    FROM ${services.store.tables.session} WHERE user_id = ${own.user.id} AND expires_at > now() ORDER BY created_at, id`)
  return sessions.map((session) => ({ ...authSession(session, organizations), token: session.id }))
}

/** `POST /revoke-session`: ends one of the caller's sessions (another user's id ends nothing); true when it was the caller's own. */
export async function revokeSession (services: AccountServices, own: Own, id: string): Promise<boolean> {
  const { store } = services
  await store.change(async (db, changed) => {
    const [ended] = await rows(db, sql`DELETE FROM ${store.tables.session} WHERE id = ${id} AND user_id = ${own.user.id} RETURNING id`)
    if (ended !== undefined) await changed('revoke-sessions', own.user, own.user, own.by)
  })
  return id === own.session.id
}

/** `POST /revoke-other-sessions`: every other session ends, and every access token issued before now. */
export async function revokeOtherSessions (services: AccountServices, own: Own): Promise<void> {
  const { store } = services
  await store.change(async (db, changed) => {
    await endOtherSessions(db, store.tables, own.user.id, own.session.id)
    await endTokens(db, store.tables, own.user.id)
    await changed('revoke-sessions', own.user, own.user, own.by)
  })
}

/** `POST /delete-user`: the password first; the last active admin stays. */
export async function deleteOwnAccount (services: AccountServices, own: Own, password: unknown): Promise<void> {
  await confirmPassword(services, own.user, password)
  try {
    await services.store.delete({ id: own.user.id }, { by: own.by })
  } catch (err) {
    if (err instanceof UserStoreError) throw userStoreProblem(err)
    throw err
  }
}
