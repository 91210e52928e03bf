// Host-side organization operations (docs/organizations.md), shared by the CLI and the
// `app.tablegate.organizations` decorator, built on the statements the login's organization routes
// use too (organization-core.ts). Every refusal is an OrganizationStoreError with a code callers map
// to an exit line. Every change runs the write hooks in its own
// transaction as resource `auth.organizations` or `auth.members`, so a hook that throws undoes it.
// Membership changes lock the organization's row first: two changes to one organization's members
// run one after the other, so two owners demoting each other at once cannot leave it without one.
import { sql } from '../sql/sql.js'
import { rows } from '../db/query.js'
import type { MemberRow, OrganizationRow } from './store/migrate.js'
import type { ChangeOptions, UserRef } from './users.js'
import { OWNER_ROLE } from '../config/organizations.js'
import {
  checkId, checkLogo, checkMetadata, checkName, checkSlug, organizationCore, parseRoles,
  type OrganizationCore, type OrganizationRef, type OrganizationStoreOptions,
} from './organization-core.js'
import { importOrganizations, type OrganizationImportOptions, type OrganizationImportEntry, type OrganizationImportResult } from './organization-import.js'

export type { MemberRow, OrganizationRow }
export {
  MEMBERS_RESOURCE, ORGANIZATIONS_RESOURCE, OrganizationStoreError, checkSlug,
  type OrganizationRef, type OrganizationStoreErrorCode, type OrganizationStoreOptions,
} from './organization-core.js'
export type { OrganizationImportOptions, OrganizationImportEntry, OrganizationImportResult }

export interface CreateOrganizationInput {
  /** Kept as given (an existing tenant's id); without it, a new random one. */
  readonly id?: string | undefined
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
  /** Makes the entries' organizations with their ids, all or none; those there already as described are unchanged. */
  import (entries: readonly OrganizationImportEntry[], options?: OrganizationImportOptions): Promise<OrganizationImportResult>
  list (): Promise<OrganizationSummary[]>
  addMember (organization: OrganizationRef, user: UserRef, role: string | readonly string[], options?: ChangeOptions): Promise<MemberRow>
  removeMember (organization: OrganizationRef, user: UserRef, options?: ChangeOptions): Promise<void>
  /** Replaces the member's organization roles; the last owner keeps `owner`. */
  setRole (organization: OrganizationRef, user: UserRef, role: string | readonly string[], options?: ChangeOptions): Promise<MemberRow>
  /** The configured organization roles. */
  roleChoices (): string[]
}

export function createOrganizationStore (options: OrganizationStoreOptions): OrganizationOperations {
  return organizationOperations(organizationCore(options))
}

/** The host operations over a store's core (the routes use the same core). */
export function organizationOperations (core: OrganizationCore): OrganizationOperations {
  const { pool, tables, settings, tx } = core

  return Object.freeze({
    create: async (input: CreateOrganizationInput, change: ChangeOptions = {}) => {
      const id = input.id === undefined ? undefined : checkId(input.id)
      const name = checkName(input.name)
      const slug = checkSlug(input.slug)
      const logo = checkLogo(input.logo)
      const metadata = checkMetadata(input.metadata)
      return await tx(async (db) => {
        const owner = await core.userOf(db, input.owner, 'owner')
        return (await core.insertOrganization(db, { id, name, slug, logo, metadata }, owner.id, OWNER_ROLE, change.by)).organization
      })
    },

    import: async (entries: readonly OrganizationImportEntry[], options: OrganizationImportOptions = {}) => await importOrganizations(core, entries, options),

    list: async () => {
      const found = await rows<OrganizationRow & { members: number }>(pool, sql`SELECT o.*,
        (SELECT count(*) FROM ${tables.member} m WHERE m.organization_id = o.id)::int AS members
        FROM ${tables.organization} o ORDER BY o.created_at, o.slug`)
      return found.map((o) => ({ id: o.id, name: o.name, slug: o.slug, members: o.members, createdAt: o.created_at.toISOString() }))
    },

    addMember: async (ref: OrganizationRef, userRef: UserRef, role: string | readonly string[], change: ChangeOptions = {}) => {
      const roles = parseRoles(settings.roles, role)
      return await tx(async (db) => {
        const organization = await core.lockedOrganization(db, ref)
        const user = await core.userOf(db, userRef, 'email')
        const member = await core.insertMember(db, organization, user, roles, change.by)
        return member
      })
    },

    removeMember: async (ref: OrganizationRef, userRef: UserRef, change: ChangeOptions = {}) => {
      await tx(async (db) => {
        const organization = await core.lockedOrganization(db, ref)
        const user = await core.userOf(db, userRef, 'email')
        const member = await core.memberOf(db, organization, user)
        await core.guardLastOwner(db, organization, member, 'remove', user)
        await core.deleteMember(db, organization, member, change.by)
      })
    },

    setRole: async (ref: OrganizationRef, userRef: UserRef, role: string | readonly string[], change: ChangeOptions = {}) => {
      const roles = parseRoles(settings.roles, role)
      return await tx(async (db) => {
        const organization = await core.lockedOrganization(db, ref)
        const user = await core.userOf(db, userRef, 'email')
        const member = await core.memberOf(db, organization, user)
        if (!roles.includes(OWNER_ROLE)) await core.guardLastOwner(db, organization, member, 'demote', user)
        return await core.updateRoles(db, member, roles, change.by)
      })
    },

    roleChoices: () => [...settings.roles],
  })
}
