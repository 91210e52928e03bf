// Host-side organization operations (docs/organizations.md), shared by the CLI and the
// `app.tablegate.organizations` decorator. Every refusal is an OrganizationStoreError with a code
// callers map to an exit line (or, later, a problem). Every change runs the write hooks in its own
// transaction as resource `auth.organizations` or `auth.members`, so a hook that throws undoes it.
// Membership changes lock the organization's row first: two changes to one organization's members
// run one after the other, so two owners demoting each other at once cannot leave it without one.
import { randomBytes } from 'node:crypto'
import { sql, type Sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'
import type { Pool } from '../db/pool.js'
import { withTransaction } from '../db/transaction.js'
import { authTables, type MemberRow, type OrganizationRow, type UserRow } from './store/migrate.js'
import { HOST_CONTEXT, UserStoreError, normalizeEmail, type ChangeOptions, type UserEvents, type UserRef } from './users.js'
import { authMember, authOrganization } from './shapes.js'
import { limitOrganizationTokens, widenOrganizationTokens } from './revocations.js'
import { rolesOf } from '../config/roles.js'
import { OWNER_ROLE, type OrganizationSettings } from '../config/organizations.js'
import type { StoredRecord, WriteOperation } from '../../hooks/types.js'

export type { MemberRow, OrganizationRow }

/** The resource names of organization and membership changes in write hooks. */
export const ORGANIZATIONS_RESOURCE = 'auth.organizations'
export const MEMBERS_RESOURCE = 'auth.members'

export type OrganizationStoreErrorCode = 'invalid-name' | 'invalid-slug' | 'invalid-logo' | 'invalid-metadata' | 'slug-taken' |
'unknown-organization' | 'invalid-email' | 'unknown-user' | 'invalid-role' | 'role-required' | 'already-member' | 'not-a-member' | 'last-owner'

export class OrganizationStoreError extends Error {
  readonly code: OrganizationStoreErrorCode
  /** The input field the refusal is about. */
  readonly field: string | undefined
  constructor (code: OrganizationStoreErrorCode, message: string, field?: string) {
    super(message)
    this.name = 'OrganizationStoreError'
    this.code = code
    this.field = field
  }
}

/** An organization by slug (a string) or by id. */
export type OrganizationRef = string | { readonly id: string }

export interface CreateOrganizationInput {
  readonly name: string
  readonly slug: string
  /** The user who becomes its first member, with the role `owner`. */
  readonly owner: UserRef
  readonly logo?: string | null | undefined
  readonly metadata?: Record<string, unknown> | null | undefined
}

export interface OrganizationSummary {
  id: string
  name: string
  slug: string
  members: number
  createdAt: string
}

/** The host-side organization operations: no pool or tables. */
export interface OrganizationOperations {
  create (input: CreateOrganizationInput, options?: ChangeOptions): Promise<OrganizationRow>
  list (): Promise<OrganizationSummary[]>
  addMember (organization: OrganizationRef, user: UserRef, role: string | readonly string[], options?: ChangeOptions): Promise<MemberRow>
  removeMember (organization: OrganizationRef, user: UserRef, options?: ChangeOptions): Promise<void>
  /** Replaces the member's organization roles; the last owner keeps `owner`. */
  setRole (organization: OrganizationRef, user: UserRef, role: string | readonly string[], options?: ChangeOptions): Promise<MemberRow>
  /** The configured organization roles. */
  roleChoices (): string[]
}

export interface OrganizationStoreOptions {
  readonly pool: Pool
  readonly schema: string | undefined
  readonly settings: OrganizationSettings
  /** The app's write hooks; without them changes run no hooks. */
  readonly events?: UserEvents | undefined
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/
const CONTROL = /\p{Cc}/u

/** Lowercase letters, digits and dashes, starting and ending with a letter or digit, at most 64 characters. */
export function checkSlug (slug: unknown): string {
  if (typeof slug !== 'string' || !SLUG.test(slug)) {
    throw new OrganizationStoreError('invalid-slug', 'slug must be lowercase letters, digits and dashes, start and end with a letter or digit, and have at most 64 characters', 'slug')
  }
  return slug
}

function checkName (name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : ''
  if (trimmed === '' || CONTROL.test(trimmed)) throw new OrganizationStoreError('invalid-name', 'name must be text, neither empty nor with control characters', 'name')
  return trimmed
}

function checkLogo (logo: unknown): string | null {
  if (logo === undefined || logo === null) return null
  if (typeof logo !== 'string' || CONTROL.test(logo)) throw new OrganizationStoreError('invalid-logo', 'logo must be text (a URL) without control characters', 'logo')
  return logo
}

function checkMetadata (metadata: unknown): string | null {
  if (metadata === undefined || metadata === null) return null
  if (typeof metadata !== 'object' || Array.isArray(metadata)) throw new OrganizationStoreError('invalid-metadata', 'metadata must be a JSON object', 'metadata')
  return JSON.stringify(metadata)
}

/** A role, or several comma separated, each one of the organization roles. */
function parseRoles (choices: readonly string[], input: string | readonly string[]): string[] {
  const parts = (typeof input === 'string' ? input.split(',') : [...input]).map((r) => String(r).trim()).filter((r) => r !== '')
  if (parts.length === 0) throw new OrganizationStoreError('role-required', `an organization role is required: choose from ${choices.join(', ')}`, 'role')
  const outside = parts.filter((r) => !choices.includes(r))
  if (outside.length > 0) throw new OrganizationStoreError('invalid-role', `organization role '${outside.join(',')}' is not one of ${choices.join(', ')}`, 'role')
  return [...new Set(parts)]
}

function isOwner (member: MemberRow): boolean {
  return member.role.split(',').map((r) => r.trim()).includes(OWNER_ROLE)
}

function newId (): string {
  return randomBytes(16).toString('base64url')
}

export function createOrganizationStore (options: OrganizationStoreOptions): OrganizationOperations {
  const { pool, settings } = options
  const tables = authTables(options.schema)
  const tx = async <T>(work: (db: Queryable) => Promise<T>): Promise<T> => await withTransaction(pool, {}, work)

  // The organization's row locked: the membership changes of one organization run one at a time.
  const lockedOrganization = async (db: Queryable, ref: OrganizationRef): Promise<OrganizationRow> => {
    const bySlug = typeof ref === 'string'
    const where = bySlug ? sql`slug = ${ref}` : sql`id = ${ref.id}`
    const [organization] = await rows<OrganizationRow>(db, sql`SELECT * FROM ${tables.organization} WHERE ${where} FOR UPDATE`)
    if (organization === undefined) {
      throw bySlug
        ? new OrganizationStoreError('unknown-organization', `no organization with slug ${ref}`, 'organization')
        : new OrganizationStoreError('unknown-organization', `no organization with id ${ref.id}`, 'organizationId')
    }
    return organization
  }

  // KEY SHARE: the user cannot be deleted before the membership naming them commits.
  const userOf = async (db: Queryable, ref: UserRef, field: string): Promise<UserRow> => {
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
  }

  const memberOf = async (db: Queryable, organization: OrganizationRow, user: UserRow): Promise<MemberRow> => {
    const [member] = await rows<MemberRow>(db, sql`SELECT * FROM ${tables.member}
      WHERE organization_id = ${organization.id} AND user_id = ${user.id}`)
    if (member === undefined) throw new OrganizationStoreError('not-a-member', `${user.email} is not a member of ${organization.slug}`, 'email')
    return member
  }

  // Under the organization's lock, so no other change of its members runs between this and the write.
  const guardLastOwner = async (db: Queryable, organization: OrganizationRow, member: MemberRow, action: string, user: UserRow): Promise<void> => {
    if (!isOwner(member)) return
    const [other] = await rows(db, sql`SELECT 1 FROM ${tables.member}
      WHERE organization_id = ${organization.id} AND id <> ${member.id} AND ${OWNER_ROLE} = ANY (string_to_array(role, ',')) LIMIT 1`)
    if (other === undefined) throw new OrganizationStoreError('last-owner', `cannot ${action} ${user.email}: the last owner of ${organization.slug}`, 'email')
  }

  // The hooks see better-auth's organization and member records.
  const changed = async (db: Queryable, resource: string, operation: WriteOperation, before: StoredRecord | undefined, after: StoredRecord | undefined, by: ChangeOptions['by']): Promise<void> => {
    if (options.events === undefined) return
    const key = String((after ?? before)!.id)
    await options.events.run({ resource, operation, key, before, after, ctx: by ?? HOST_CONTEXT }, db)
  }
  const memberRecord = (member: MemberRow): StoredRecord => ({ ...authMember(member) })

  return Object.freeze({
    create: async (input: CreateOrganizationInput, change: ChangeOptions = {}) => {
      const name = checkName(input.name)
      const slug = checkSlug(input.slug)
      const logo = checkLogo(input.logo)
      const metadata = checkMetadata(input.metadata)
      return await tx(async (db) => {
        const owner = await userOf(db, input.owner, 'owner')
        // A slug taken meanwhile (even by a transaction not yet committed) inserts nothing.
        const [organization] = await rows<OrganizationRow>(db, sql`INSERT INTO ${tables.organization} (id, name, slug, logo, metadata)
          VALUES (${newId()}, ${name}, ${slug}, ${logo}, ${metadata}) ON CONFLICT (slug) DO NOTHING RETURNING *`)
        if (organization === undefined) throw new OrganizationStoreError('slug-taken', `the slug ${slug} is taken by another organization`, 'slug')
        const [member] = await rows<MemberRow>(db, sql`INSERT INTO ${tables.member} (id, organization_id, user_id, role)
          VALUES (${newId()}, ${organization.id}, ${owner.id}, ${OWNER_ROLE}) RETURNING *`)
        await changed(db, ORGANIZATIONS_RESOURCE, 'create', undefined, { ...authOrganization(organization) }, change.by)
        await changed(db, MEMBERS_RESOURCE, 'create', undefined, memberRecord(member!), change.by)
        return organization
      })
    },

    list: async () => {
      const found = await rows<OrganizationRow & { members: number }>(pool, sql`SELECT o.*,
        (SELECT count(*) FROM ${tables.member} m WHERE m.organization_id = o.id)::int AS members
        FROM ${tables.organization} o ORDER BY o.created_at, o.slug`)
      return found.map((o) => ({ id: o.id, name: o.name, slug: o.slug, members: o.members, createdAt: o.created_at.toISOString() }))
    },

    addMember: async (ref: OrganizationRef, userRef: UserRef, role: string | readonly string[], change: ChangeOptions = {}) => {
      const roles = parseRoles(settings.roles, role)
      return await tx(async (db) => {
        const organization = await lockedOrganization(db, ref)
        const user = await userOf(db, userRef, 'email')
        const [member] = await rows<MemberRow>(db, sql`INSERT INTO ${tables.member} (id, organization_id, user_id, role)
          VALUES (${newId()}, ${organization.id}, ${user.id}, ${roles.join(',')})
          ON CONFLICT (organization_id, user_id) DO NOTHING RETURNING *`)
        if (member === undefined) throw new OrganizationStoreError('already-member', `${user.email} is already a member of ${organization.slug}`, 'email')
        await widenOrganizationTokens(db, tables, user.id, organization.id, member.role)
        await changed(db, MEMBERS_RESOURCE, 'create', undefined, memberRecord(member), change.by)
        return member
      })
    },

    removeMember: async (ref: OrganizationRef, userRef: UserRef, change: ChangeOptions = {}) => {
      await tx(async (db) => {
        const organization = await lockedOrganization(db, ref)
        const user = await userOf(db, userRef, 'email')
        const member = await memberOf(db, organization, user)
        await guardLastOwner(db, organization, member, 'remove', user)
        await query(db, sql`DELETE FROM ${tables.member} WHERE id = ${member.id}`)
        // Their sessions no longer work in it, nor their tokens (within the revocation bound).
        await query(db, sql`UPDATE ${tables.session} SET active_organization_id = NULL
          WHERE user_id = ${user.id} AND active_organization_id = ${organization.id}`)
        await limitOrganizationTokens(db, tables, user.id, organization.id, '')
        await changed(db, MEMBERS_RESOURCE, 'delete', memberRecord(member), undefined, change.by)
      })
    },

    setRole: async (ref: OrganizationRef, userRef: UserRef, role: string | readonly string[], change: ChangeOptions = {}) => {
      const roles = parseRoles(settings.roles, role)
      return await tx(async (db) => {
        const organization = await lockedOrganization(db, ref)
        const user = await userOf(db, userRef, 'email')
        const member = await memberOf(db, organization, user)
        if (!roles.includes(OWNER_ROLE)) await guardLastOwner(db, organization, member, 'demote', user)
        const [updated] = await rows<MemberRow>(db, sql`UPDATE ${tables.member} SET role = ${roles.join(',')}
          WHERE id = ${member.id} RETURNING *`)
        // A role lost is lost to the tokens issued before too; a role only added waits for the next token.
        if (rolesOf(member.role).some((r) => !roles.includes(r))) await limitOrganizationTokens(db, tables, user.id, organization.id, roles.join(','))
        else await widenOrganizationTokens(db, tables, user.id, organization.id, roles.join(','))
        await changed(db, MEMBERS_RESOURCE, 'update', memberRecord(member), memberRecord(updated!), change.by)
        return updated!
      })
    },

    roleChoices: () => [...settings.roles],
  })
}
