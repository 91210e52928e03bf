// The statements and checks every organization change is made of, shared by the host operations
// (organizations.ts) and the signed-in users' actions behind the routes (organization-actions.ts,
// member-actions.ts), so both hold the same rules: input forms, the organization's row lock, the
// last-owner rule and the write hooks.
import { randomBytes } from 'node:crypto'
import { sql, type Sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'
import type { Pool } from '../db/pool.js'
import { withTransaction } from '../db/transaction.js'
import { authTables, type AuthTables, type MemberRow, type OrganizationRow, type UserRow } from './store/migrate.js'
import { HOST_CONTEXT, UserStoreError, normalizeEmail, type ChangeOptions, type UserEvents, type UserRef } from './users.js'
import { authMember, authOrganization } from './shapes.js'
import { limitOrganizationTokens, widenOrganizationTokens } from './revocations.js'
import { rolesOf } from '../config/roles.js'
import { OWNER_ROLE, type OrganizationSettings } from '../config/organizations.js'
import type { StoredRecord, WriteOperation } from '../../hooks/types.js'

/** The resource names of organization and membership changes in write hooks. */
export const ORGANIZATIONS_RESOURCE = 'auth.organizations'
export const MEMBERS_RESOURCE = 'auth.members'

export type OrganizationStoreErrorCode = 'invalid-id' | 'invalid-name' | 'invalid-slug' | 'invalid-logo' | 'invalid-metadata' | 'id-taken' | 'slug-taken' |
'unknown-organization' | 'invalid-email' | 'unknown-user' | 'invalid-role' | 'role-required' | 'already-member' | 'not-a-member' | 'last-owner' |
'duplicate-id' | 'duplicate-slug' | 'organization-differs'

export class OrganizationStoreError extends Error {
  readonly code: OrganizationStoreErrorCode
  /** The input field the refusal is about. */
  readonly field: string | undefined
  /** In an import, the index of the entry refused. */
  readonly entry: number | undefined
  constructor (code: OrganizationStoreErrorCode, message: string, field?: string, entry?: number) {
    super(message)
    this.name = 'OrganizationStoreError'
    this.code = code
    this.field = field
    this.entry = entry
  }
}

/** An organization by slug (a string) or by id. */
export type OrganizationRef = string | { readonly id: string }

export interface OrganizationStoreOptions {
  readonly pool: Pool
  readonly schema: string | undefined
  readonly settings: OrganizationSettings
  /** The app's write hooks; without them changes run no hooks. */
  readonly events?: UserEvents | undefined
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/
const CONTROL = /\p{Cc}/u
/** Room for any key a tenant column holds (a uuid is 36), short enough for the token's `org.id`. */
const MAX_ID_LENGTH = 128

/**
 * A given organization id: kept exactly as given, because it must equal the tenant column's values
 * (docs/organizations.md, "Moving an existing multi-tenant database"), so it is refused, never trimmed.
 */
export function checkId (id: unknown): string {
  const refuse = (why: string): never => { throw new OrganizationStoreError('invalid-id', `id must ${why}`, 'id') }
  if (typeof id !== 'string') return refuse('be text')
  if (id === '') return refuse('not be empty')
  if ([...id].length > MAX_ID_LENGTH) return refuse(`have at most ${MAX_ID_LENGTH} characters, not ${[...id].length}`)
  if (CONTROL.test(id)) return refuse('not contain control characters')
  if (id.trim() !== id) return refuse('not start or end with whitespace')
  return id
}

/** Lowercase letters, digits and dashes, starting and ending with a letter or digit, at most 64 characters. */
export function checkSlug (slug: unknown): string {
  if (typeof slug !== 'string' || !SLUG.test(slug)) {
    throw new OrganizationStoreError('invalid-slug', 'slug must be lowercase letters, digits and dashes, start and end with a letter or digit, and have at most 64 characters', 'slug')
  }
  return slug
}

export function checkName (name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : ''
  if (trimmed === '' || CONTROL.test(trimmed)) throw new OrganizationStoreError('invalid-name', 'name must be text, neither empty nor with control characters', 'name')
  return trimmed
}

export function checkLogo (logo: unknown): string | null {
  if (logo === undefined || logo === null) return null
  if (typeof logo !== 'string' || CONTROL.test(logo)) throw new OrganizationStoreError('invalid-logo', 'logo must be text (a URL) without control characters', 'logo')
  return logo
}

export function checkMetadata (metadata: unknown): string | null {
  if (metadata === undefined || metadata === null) return null
  if (typeof metadata !== 'object' || Array.isArray(metadata)) throw new OrganizationStoreError('invalid-metadata', 'metadata must be a JSON object', 'metadata')
  return JSON.stringify(metadata)
}

/** A member's roles: stored comma separated, as better-auth stores them. */
export function roleList (role: string): string[] {
  return role.split(',').map((r) => r.trim()).filter((r) => r !== '')
}

/** A role, or several comma separated, each one of the organization roles. */
export function parseRoles (choices: readonly string[], input: string | readonly string[]): string[] {
  const parts = (typeof input === 'string' ? input.split(',') : [...input]).map((r) => String(r).trim()).filter((r) => r !== '')
  if (parts.length === 0) throw new OrganizationStoreError('role-required', `an organization role is required: choose from ${choices.join(', ')}`, 'role')
  const outside = parts.filter((r) => !choices.includes(r))
  if (outside.length > 0) throw new OrganizationStoreError('invalid-role', `organization role '${outside.join(',')}' is not one of ${choices.join(', ')}`, 'role')
  return [...new Set(parts)]
}

export function isOwner (member: Pick<MemberRow, 'role'>): boolean {
  return roleList(member.role).includes(OWNER_ROLE)
}

export function newId (): string {
  return randomBytes(16).toString('base64url')
}

/** What a user needs to be named by in a refusal: the store's rows carry the email. */
type Named = Pick<UserRow, 'email'>

export interface OrganizationCore {
  readonly pool: Pool
  readonly tables: AuthTables
  readonly settings: OrganizationSettings
  tx <T>(work: (db: Queryable) => Promise<T>): Promise<T>
  /** The organization's row, locked: the membership changes of one organization run one at a time. */
  lockedOrganization (db: Queryable, ref: OrganizationRef): Promise<OrganizationRow>
  userOf (db: Queryable, ref: UserRef, field: string): Promise<UserRow>
  memberOf (db: Queryable, organization: OrganizationRow, user: UserRow): Promise<MemberRow>
  /** Refuses (`last-owner`) a change that would leave the organization without an owner; call it under the lock. */
  guardLastOwner (db: Queryable, organization: OrganizationRow, member: MemberRow, action: string, user: Named): Promise<void>
  /** `id-taken` or `slug-taken` when another organization has either; without `id`, a new one. */
  insertOrganization (db: Queryable, input: { id?: string | undefined, name: string, slug: string, logo: string | null, metadata: string | null }, ownerId: string, role: string, by: ChangeOptions['by']): Promise<{ organization: OrganizationRow, member: MemberRow }>
  /** Adds the user; `already-member` when they are one. */
  insertMember (db: Queryable, organization: OrganizationRow, user: UserRow, roles: readonly string[], by: ChangeOptions['by']): Promise<MemberRow>
  /** Deletes the membership and clears the organization as the user's sessions' active one. */
  deleteMember (db: Queryable, organization: OrganizationRow, member: MemberRow, by: ChangeOptions['by']): Promise<void>
  updateRoles (db: Queryable, member: MemberRow, roles: readonly string[], by: ChangeOptions['by']): Promise<MemberRow>
  changed (db: Queryable, resource: string, operation: WriteOperation, before: StoredRecord | undefined, after: StoredRecord | undefined, by: ChangeOptions['by']): Promise<void>
}

export function organizationCore (options: OrganizationStoreOptions): OrganizationCore {
  const { pool, settings } = options
  const tables = authTables(options.schema)

  // The hooks see better-auth's organization and member records.
  const changed: OrganizationCore['changed'] = async (db, resource, operation, before, after, by) => {
    if (options.events === undefined) return
    const key = String((after ?? before)!.id)
    await options.events.run({ resource, operation, key, before, after, ctx: by ?? HOST_CONTEXT }, db)
  }
  const memberRecord = (member: MemberRow): StoredRecord => ({ ...authMember(member) })

  const core: OrganizationCore = {
    pool,
    tables,
    settings,
    tx: async <T>(work: (db: Queryable) => Promise<T>): Promise<T> => await withTransaction(pool, {}, work),

    lockedOrganization: async (db: Queryable, ref: OrganizationRef) => {
      const bySlug = typeof ref === 'string'
      const where = bySlug ? sql`slug = ${ref}` : sql`id = ${ref.id}`
      const [organization] = await rows<OrganizationRow>(db, sql`SELECT * FROM ${tables.organization} WHERE ${where} FOR UPDATE`)
      if (organization === undefined) {
        throw bySlug
          ? new OrganizationStoreError('unknown-organization', `no organization with slug ${ref}`, 'organization')
          : new OrganizationStoreError('unknown-organization', `no organization with id ${ref.id}`, 'organizationId')
      }
      return organization
    },

    // KEY SHARE: the user cannot be deleted before the membership naming them commits.
    userOf: async (db: Queryable, ref: UserRef, field: string) => {
      let where: Sql
      if (typeof ref === 'string') {
        try {
          where = sql`email = ${normalizeEmail(ref)}`
        } catch (err) {
          if (err instanceof UserStoreError) throw new OrganizationStoreError('invalid-email', err.message, field)
          throw err
        }
      } else {
        where = sql`id = ${ref.id}`
      }
      const [user] = await rows<UserRow>(db, sql`SELECT * FROM ${tables.user} WHERE ${where} FOR KEY SHARE`)
      if (user === undefined) {
        throw new OrganizationStoreError('unknown-user', typeof ref === 'string' ? `no user with email ${normalizeEmail(ref)}` : `no user with id ${ref.id}`, field)
      }
      return user
    },

    memberOf: async (db: Queryable, organization: OrganizationRow, user: UserRow) => {
      const [member] = await rows<MemberRow>(db, sql`SELECT * FROM ${tables.member}
        WHERE organization_id = ${organization.id} AND user_id = ${user.id}`)
      if (member === undefined) throw new OrganizationStoreError('not-a-member', `${user.email} is not a member of ${organization.slug}`, 'email')
      return member
    },

    guardLastOwner: async (db: Queryable, organization: OrganizationRow, member: MemberRow, action: string, user: Named) => {
      if (!isOwner(member)) return
      const [other] = await rows(db, sql`SELECT 1 FROM ${tables.member}
        WHERE organization_id = ${organization.id} AND id <> ${member.id} AND ${OWNER_ROLE} = ANY (string_to_array(role, ',')) LIMIT 1`)
      if (other === undefined) throw new OrganizationStoreError('last-owner', `cannot ${action} ${user.email}: the last owner of ${organization.slug}`, 'email')
    },

    insertOrganization: async (db, input, ownerId, role, by) => {
      // An id or slug taken meanwhile (even by a transaction not yet committed) inserts nothing.
      const [organization] = await rows<OrganizationRow>(db, sql`INSERT INTO ${tables.organization} (id, name, slug, logo, metadata)
        VALUES (${input.id ?? newId()}, ${input.name}, ${input.slug}, ${input.logo}, ${input.metadata}) ON CONFLICT DO NOTHING RETURNING *`)
      if (organization === undefined) {
        const [taken] = input.id === undefined ? [] : await rows(db, sql`SELECT 1 FROM ${tables.organization} WHERE id = ${input.id}`)
        if (taken !== undefined) throw new OrganizationStoreError('id-taken', `the id ${input.id!} is taken by another organization`, 'id')
        throw new OrganizationStoreError('slug-taken', `the slug ${input.slug} is taken by another organization`, 'slug')
      }
      const [member] = await rows<MemberRow>(db, sql`INSERT INTO ${tables.member} (id, organization_id, user_id, role)
        VALUES (${newId()}, ${organization.id}, ${ownerId}, ${role}) RETURNING *`)
      await changed(db, ORGANIZATIONS_RESOURCE, 'create', undefined, { ...authOrganization(organization) }, by)
      await changed(db, MEMBERS_RESOURCE, 'create', undefined, memberRecord(member!), by)
      return { organization, member: member! }
    },

    insertMember: async (db, organization, user, roles, by) => {
      const [member] = await rows<MemberRow>(db, sql`INSERT INTO ${tables.member} (id, organization_id, user_id, role)
        VALUES (${newId()}, ${organization.id}, ${user.id}, ${roles.join(',')})
        ON CONFLICT (organization_id, user_id) DO NOTHING RETURNING *`)
      if (member === undefined) throw new OrganizationStoreError('already-member', `${user.email} is already a member of ${organization.slug}`, 'email')
      await widenOrganizationTokens(db, tables, user.id, organization.id, member.role)
      await changed(db, MEMBERS_RESOURCE, 'create', undefined, memberRecord(member), by)
      return member
    },

    deleteMember: async (db, organization, member, by) => {
      await query(db, sql`DELETE FROM ${tables.member} WHERE id = ${member.id}`)
      // Their sessions no longer work in it, nor their tokens (within the revocation bound).
      await query(db, sql`UPDATE ${tables.session} SET active_organization_id = NULL
        WHERE user_id = ${member.user_id} AND active_organization_id = ${organization.id}`)
      await limitOrganizationTokens(db, tables, member.user_id, organization.id, '')
      await changed(db, MEMBERS_RESOURCE, 'delete', memberRecord(member), undefined, by)
    },

    updateRoles: async (db, member, roles, by) => {
      const [updated] = await rows<MemberRow>(db, sql`UPDATE ${tables.member} SET role = ${roles.join(',')}
        WHERE id = ${member.id} RETURNING *`)
      // A role lost is lost to the tokens issued before too; a role only added waits for the next token.
      if (rolesOf(member.role).some((r) => !roles.includes(r))) await limitOrganizationTokens(db, tables, member.user_id, member.organization_id, roles.join(','))
      else await widenOrganizationTokens(db, tables, member.user_id, member.organization_id, roles.join(','))
      await changed(db, MEMBERS_RESOURCE, 'update', memberRecord(member), memberRecord(updated!), by)
      return updated!
    },

    changed,
  }
  return Object.freeze(core)
}
