// Host-side user operations (docs/login.md, "Host-side user operations"), shared by the CLI, the
// `app.tablegate.users` decorator and the admin routes. Every refusal is a UserStoreError with a
// code the callers map to an exit line or a problem. Every change runs the write hooks in its own
// transaction as resource `auth.users` (docs/login.md, "User changes are write events"), so a hook
// that throws undoes it.
import { randomBytes } from 'node:crypto'
import { sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'
import type { Pool } from '../db/pool.js'
import { withTransaction } from '../db/transaction.js'
import { authTables, lockAuthStore, migrateAuthStore, type AuthTables, type UserRow } from './store/migrate.js'
import { ADMIN_ROLE, RoleError, formatRoles, noRoleGiven, parseRoles, rolesForNewUser, rolesOf, type RoleSetup } from '../config/roles.js'
import { hashPassword, passwordProblem } from './passwords.js'
import { endSessions } from './sessions.js'
import { endTokens, limitTokenRoles } from './revocations.js'
import { signingKeys, type SigningKeys } from './keys.js'
import { authUser } from './shapes.js'
import { problem, NO_ROUTE_DETAIL } from '../problems.js'
import type { TablegateContext } from '../context.js'
import type { StoredRecord, WriteEvent, WriteOperation } from '../../hooks/types.js'
import { ACCESS_TOKEN_TTL_SECONDS, MAX_MINTED_TTL_SECONDS, issueAccessToken, type IssuedToken } from './tokens.js'
import type { ResolvedConfig } from '../config/resolve.js'
import type { PasswordPolicy } from '../config/accounts.js'
import type { Databases } from '../db/connect.js'

export type { UserRow }

export interface UserSummary {
  id: string
  email: string
  role: string
  banned: boolean
  createdAt: string
}

export type UserStoreErrorCode = 'invalid-email' | 'invalid-name' | 'weak-password' | 'long-password' | 'invalid-role' | 'role-required' | 'email-taken' | 'unknown-user' | 'last-admin' | 'banned' | 'invalid-ttl'

/** The resource name of user-store changes in write hooks. */
export const USERS_RESOURCE = 'auth.users'

export class UserStoreError extends Error {
  readonly code: UserStoreErrorCode
  /** The input field the refusal is about, for `errors: [{ field, code, message }]`. */
  readonly field: string | undefined
  constructor (code: UserStoreErrorCode, message: string, field?: string) {
    super(message)
    this.name = 'UserStoreError'
    this.code = code
    this.field = field
  }
}

export interface CreateUserInput {
  readonly email: string
  readonly password: string
  readonly name?: string | undefined
  readonly role?: string | readonly string[] | undefined
}

/** A user by email (a string) or by id. */
export type UserRef = string | { readonly id: string }

/** Who makes a change: the caller's context, which write hooks get as `event.ctx`; none is the host. */
export interface ChangeOptions {
  readonly by?: TablegateContext | undefined
}

/** What runs the write hooks of a change inside its transaction. */
export interface UserEvents {
  run (event: WriteEvent, tx: Queryable): Promise<void>
}

export interface UserStore {
  readonly pool: Pool
  readonly tables: AuthTables
  readonly keys: SigningKeys
  migrate (): Promise<void>
  create (input: CreateUserInput, options?: ChangeOptions): Promise<UserRow>
  hasUsers (): Promise<boolean>
  list (): Promise<UserSummary[]>
  findByEmail (email: string): Promise<UserRow | undefined>
  setRole (user: UserRef, role: string | readonly string[], options?: ChangeOptions): Promise<UserRow>
  setBanned (user: UserRef, banned: boolean, options?: ChangeOptions & { readonly reason?: string | undefined }): Promise<UserRow>
  delete (user: UserRef, options?: ChangeOptions): Promise<void>
  /** Ends the user's sessions (signed-in browsers) and the tokens issued from them. */
  revokeSessions (user: UserRef, options?: ChangeOptions): Promise<UserRow>
  issueToken (email: string, options?: { ttlSeconds?: number }): Promise<IssuedToken>
  roleChoices (): string[]
  /** Runs `work` in a transaction of the store (its lock held), with `changed` to run the write hooks of each change in it. */
  change<T> (work: (db: Queryable, changed: ChangeRecorder) => Promise<T>): Promise<T>
  /** The length bounds of new passwords. */
  readonly passwordPolicy: PasswordPolicy | undefined
}

/** Runs the write hooks of one user change (`auth.users`) in the change's transaction. */
export type ChangeRecorder = (operation: WriteOperation, before: UserRow | undefined, after: UserRow | undefined, by: TablegateContext | undefined) => Promise<void>

/**
 * The host-side user operations (docs/login.md), all a plugin gets of the store: no pool, tables or
 * keys.
 */
export type UserOperations = Pick<UserStore, 'migrate' | 'create' | 'hasUsers' | 'list' | 'findByEmail' | 'setRole' | 'setBanned' | 'delete' | 'revokeSessions' | 'issueToken' | 'roleChoices'>

/** The operations of a store, as an object of their own: the store's pool, tables and signing keys are not reachable from it. */
export function userOperations (store: UserStore): UserOperations {
  const { migrate, create, hasUsers, list, findByEmail, setRole, setBanned, delete: remove, revokeSessions, issueToken, roleChoices } = store
  return Object.freeze({ migrate, create, hasUsers, list, findByEmail, setRole, setBanned, delete: remove, revokeSessions, issueToken, roleChoices })
}

export interface UserStoreOptions {
  readonly pool: Pool
  readonly schema: string | undefined
  readonly roles: RoleSetup
  readonly authSecret: string
  /** Issuer and audience of tokens: the public URL. */
  readonly issuer: string
  /** The app's write hooks; without them changes run no hooks (a bare store, as in `migrate`). */
  readonly events?: UserEvents | undefined
  /** The length bounds of new passwords; the defaults without it. */
  readonly passwordPolicy?: PasswordPolicy | undefined
}

// No control characters (NUL would reach PostgreSQL, which refuses it in text).
const EMAIL = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u

/**
 * The email as stored and looked up: trimmed, lower case, and in Unicode NFC, so `ü` typed as one
 * character or as `u` and a combining diaeresis is one address, not two that look the same.
 */
export function normalizeEmail (email: unknown): string {
  const normalized = typeof email === 'string' ? email.trim().normalize('NFC').toLowerCase() : ''
  if (normalized.length > 254 || !EMAIL.test(normalized)) throw new UserStoreError('invalid-email', 'email must be a valid email address', 'email')
  return normalized
}

export function summarize (user: UserRow): UserSummary {
  return { id: user.id, email: user.email, role: user.role, banned: user.banned, createdAt: user.created_at.toISOString() }
}

function isActiveAdmin (user: UserRow): boolean {
  return !user.banned && rolesOf(user.role).includes(ADMIN_ROLE)
}

/** Refuses a new password outside the policy's length bounds. */
export function checkPassword (password: unknown, policy: PasswordPolicy | undefined, field = 'password'): void {
  const refused = passwordProblem(password, policy)
  if (refused !== undefined) throw new UserStoreError(refused.tooLong ? 'long-password' : 'weak-password', refused.message, field)
}

function roleError (err: unknown): never {
  if (err instanceof RoleError) throw new UserStoreError(err.missing ? 'role-required' : 'invalid-role', err.message, 'role')
  throw err
}

/** The context of host-side changes (CLI, library): hooks see no user, and no resource access. */
export const HOST_CONTEXT: TablegateContext = Object.freeze({
  user: null,
  tenant: undefined,
  access: () => { throw problem('not-found', NO_ROUTE_DETAIL) },
})

/** The user store a resolved config describes, on the auth store's pool. */
export function userStoreOf (config: ResolvedConfig, db: Pick<Databases, 'admin' | 'authSecret' | 'authSchema'>, events?: UserEvents): UserStore {
  return createUserStore({ pool: db.admin, schema: db.authSchema, roles: config.roles, authSecret: db.authSecret, issuer: config.publicUrl, events, passwordPolicy: config.accounts.passwordPolicy })
}

export function createUserStore (options: UserStoreOptions): UserStore {
  const { pool, roles } = options
  const tables = authTables(options.schema)
  const keys = signingKeys(pool, tables, options.authSecret)
  const tx = async <T>(work: (db: Queryable) => Promise<T>): Promise<T> =>
    await withTransaction(pool, {}, async (db) => {
      await lockAuthStore(db)
      return await work(db)
    })

  const locked = async (db: Queryable, ref: UserRef): Promise<UserRow> => {
    const byEmail = typeof ref === 'string'
    const where = byEmail ? sql`email = ${normalizeEmail(ref)}` : sql`id = ${ref.id}`
    const [user] = await rows<UserRow>(db, sql`SELECT * FROM ${tables.user} WHERE ${where} FOR UPDATE`)
    if (user === undefined) {
      throw byEmail
        ? new UserStoreError('unknown-user', `no user with email ${normalizeEmail(ref)}`, 'email')
        : new UserStoreError('unknown-user', `no user with id ${ref.id}`, 'userId')
    }
    return user
  }

  // The hooks see the user as clients do: never a password hash or a session token.
  const changed = async (db: Queryable, operation: WriteOperation, before: UserRow | undefined, after: UserRow | undefined, by: TablegateContext | undefined): Promise<void> => {
    if (options.events === undefined) return
    const record = (user: UserRow | undefined): StoredRecord | undefined => user === undefined ? undefined : { ...authUser(user) }
    const key = (after ?? before)!.id
    await options.events.run({ resource: USERS_RESOURCE, operation, key, before: record(before), after: record(after), ctx: by ?? HOST_CONTEXT }, db)
  }

  // The last active admin must stay one: refuse a change that would leave no active admin.
  const guardLastAdmin = async (db: Queryable, user: UserRow, action: string): Promise<void> => {
    if (!isActiveAdmin(user)) return
    const [other] = await rows(db, sql`SELECT 1 FROM ${tables.user}
      WHERE id <> ${user.id} AND NOT banned AND ${ADMIN_ROLE} = ANY (string_to_array(role, ',')) LIMIT 1`)
    if (other === undefined) throw new UserStoreError('last-admin', `cannot ${action} ${user.email}: the last active admin`)
  }

  return {
    pool,
    tables,
    keys,
    migrate: async () => { await migrateAuthStore(pool, tables) },

    create: async (input, change = {}) => {
      const email = normalizeEmail(input.email)
      if (input.name !== undefined && /\p{Cc}/u.test(input.name)) throw new UserStoreError('invalid-name', 'name must not contain control characters', 'name')
      checkPassword(input.password, options.passwordPolicy)
      const hash = await hashPassword(input.password)
      return await tx(async (db) => {
        const [{ exists }] = await rows<{ exists: boolean }>(db, sql`SELECT EXISTS (SELECT 1 FROM ${tables.user}) AS exists`) as [{ exists: boolean }]
        let userRoles: string[]
        try {
          // The first user is always an admin, whatever else was asked for.
          userRoles = exists ? rolesForNewUser(roles, input.role) : [ADMIN_ROLE, ...(noRoleGiven(input.role) ? [] : parseRoles(roles, input.role!))]
        } catch (err) { roleError(err) }
        const [taken] = await rows(db, sql`SELECT 1 FROM ${tables.user} WHERE email = ${email}`)
        if (taken !== undefined) throw new UserStoreError('email-taken', `a user with email ${email} already exists`, 'email')
        const id = randomBytes(16).toString('base64url')
        const [user] = await rows<UserRow>(db, sql`INSERT INTO ${tables.user} (id, email, name, role)
          VALUES (${id}, ${email}, ${input.name ?? ''}, ${formatRoles([...new Set(userRoles)])}) RETURNING *`)
        await query(db, sql`INSERT INTO ${tables.account} (id, user_id, provider_id, account_id, password)
          VALUES (${randomBytes(16).toString('base64url')}, ${id}, 'credential', ${id}, ${hash})`)
        await changed(db, 'create', undefined, user, change.by)
        return user!
      })
    },

    hasUsers: async () => {
      const [row] = await rows<{ exists: boolean }>(pool, sql`SELECT EXISTS (SELECT 1 FROM ${tables.user}) AS exists`)
      return row?.exists === true
    },

    list: async () => (await rows<UserRow>(pool, sql`SELECT * FROM ${tables.user} ORDER BY created_at, email`)).map(summarize),

    findByEmail: async (email) => {
      const [user] = await rows<UserRow>(pool, sql`SELECT * FROM ${tables.user} WHERE email = ${normalizeEmail(email)}`)
      return user
    },

    setRole: async (ref, role, change = {}) => await tx(async (db) => {
      const user = await locked(db, ref)
      let next: string[]
      try { next = parseRoles(roles, role) } catch (err) { roleError(err) }
      if (!next.includes(ADMIN_ROLE)) await guardLastAdmin(db, user, 'remove the admin role from')
      const [updated] = await rows<UserRow>(db, sql`UPDATE ${tables.user} SET role = ${formatRoles(next)}, updated_at = now()
        WHERE id = ${user.id} RETURNING *`)
      await limitTokenRoles(db, tables, user.id, updated!.role)
      await changed(db, 'update', user, updated, change.by)
      return updated!
    }),

    setBanned: async (ref, banned, change = {}) => await tx(async (db) => {
      const user = await locked(db, ref)
      if (banned) {
        await guardLastAdmin(db, user, 'ban')
        await endSessions(db, tables, user.id)
        await endTokens(db, tables, user.id)
      }
      const reason = banned ? change.reason ?? null : null
      const [updated] = await rows<UserRow>(db, sql`UPDATE ${tables.user} SET banned = ${banned}, ban_reason = ${reason}, updated_at = now()
        WHERE id = ${user.id} RETURNING *`)
      await changed(db, 'update', user, updated, change.by)
      return updated!
    }),

    delete: async (ref, change = {}) => {
      await tx(async (db) => {
        const user = await locked(db, ref)
        await guardLastAdmin(db, user, 'delete')
        await query(db, sql`DELETE FROM ${tables.user} WHERE id = ${user.id}`)
        await endTokens(db, tables, user.id)
        await changed(db, 'delete', user, undefined, change.by)
      })
    },

    revokeSessions: async (ref, change = {}) => await tx(async (db) => {
      const user = await locked(db, ref)
      await endSessions(db, tables, user.id)
      await endTokens(db, tables, user.id)
      await changed(db, 'revoke-sessions', user, user, change.by)
      return user
    }),

    issueToken: async (email, issueOptions = {}) => {
      const ttl = issueOptions.ttlSeconds ?? ACCESS_TOKEN_TTL_SECONDS
      if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_MINTED_TTL_SECONDS) {
        throw new UserStoreError('invalid-ttl', `ttl must be a whole number of seconds from 1 to ${MAX_MINTED_TTL_SECONDS}`, 'ttlSeconds')
      }
      const [user] = await rows<UserRow>(pool, sql`SELECT * FROM ${tables.user} WHERE email = ${normalizeEmail(email)}`)
      if (user === undefined) throw new UserStoreError('unknown-user', `no user with email ${normalizeEmail(email)}`, 'email')
      if (user.banned) throw new UserStoreError('banned', `${user.email} is banned`, 'email')
      return await issueAccessToken(await keys.current(), user, options.issuer, ttl)
    },

    roleChoices: () => [...roles.list],
    change: async (work) => await tx(async (db) => await work(db, async (operation, before, after, by) => { await changed(db, operation, before, after, by) })),
    passwordPolicy: options.passwordPolicy,
  }
}
