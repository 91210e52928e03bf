// `organizations.import(entries)`: many organizations with ids of their own at once, for a
// database whose tenants exist already (docs/organizations.md, "Moving an existing multi-tenant
// database"). One transaction, so a refused entry imports none. An entry whose id exists with its
// name, slug and owner is unchanged, so a second run changes nothing; one whose organization differs
// is refused, never updated (docs/decisions.md, "Existing tenants as organizations").
import { sql } from '../sql/sql.js'
import { rows, type Queryable } from '../db/query.js'
import type { MemberRow, OrganizationRow, UserRow } from './store/migrate.js'
import type { ChangeOptions, UserRef } from './users.js'
import { OWNER_ROLE } from '../config/organizations.js'
import { OrganizationStoreError, checkId, checkName, checkSlug, isOwner, type OrganizationCore } from './organization-core.js'

export interface OrganizationImportEntry {
  readonly id: string
  readonly name: string
  readonly slug: string
  /** An email, or `{ id }`: the first member, with the role `owner`, of an organization the import makes. */
  readonly owner: UserRef
}

export interface OrganizationImportOptions extends ChangeOptions {
  /** Names an entry (by index) in refusals; the default is `entry N`, counted from 1. */
  readonly label?: ((index: number) => string) | undefined
}

export interface OrganizationImportResult {
  /** The ids of the organizations made. */
  created: string[]
  /** The ids of the organizations that were there already as their entries describe them. */
  unchanged: string[]
}

export async function importOrganizations (core: OrganizationCore, entries: readonly OrganizationImportEntry[], options: OrganizationImportOptions = {}): Promise<OrganizationImportResult> {
  const label = options.label ?? ((index: number) => `entry ${index + 1}`)
  const result: OrganizationImportResult = { created: [], unchanged: [] }
  const ids = new Map<string, number>()
  const slugs = new Map<string, number>()
  await core.tx(async (db) => {
    for (const [index, entry] of entries.entries()) {
      try {
        const id = checkId(entry.id)
        const name = checkName(entry.name)
        const slug = checkSlug(entry.slug)
        const sameId = ids.get(id)
        if (sameId !== undefined) throw new OrganizationStoreError('duplicate-id', `the id ${id} is also on ${label(sameId)}`, 'id')
        const sameSlug = slugs.get(slug)
        if (sameSlug !== undefined) throw new OrganizationStoreError('duplicate-slug', `the slug ${slug} is also on ${label(sameSlug)}`, 'slug')
        ids.set(id, index)
        slugs.set(slug, index)
        const owner = await core.userOf(db, entry.owner, 'owner')
        const [existing] = await rows<OrganizationRow>(db, sql`SELECT * FROM ${core.tables.organization} WHERE id = ${id} FOR UPDATE`)
        if (existing === undefined) {
          await core.insertOrganization(db, { id, name, slug, logo: null, metadata: null }, owner.id, OWNER_ROLE, options.by)
          result.created.push(id)
        } else {
          await checkUnchanged(core, db, existing, name, slug, owner)
          result.unchanged.push(id)
        }
      } catch (err) {
        if (!(err instanceof OrganizationStoreError)) throw err
        const where = err.field === undefined ? label(index) : `${label(index)}, ${err.field}`
        throw new OrganizationStoreError(err.code, `${where}: ${err.message}`, err.field, index)
      }
    }
  })
  return result
}

/** Refuses (`organization-differs`, naming each difference) an organization other than its entry says. */
async function checkUnchanged (core: OrganizationCore, db: Queryable, existing: OrganizationRow, name: string, slug: string, owner: UserRow): Promise<void> {
  const differences: Array<[field: string, text: string]> = []
  if (existing.name !== name) differences.push(['name', `its name is '${existing.name}'`])
  if (existing.slug !== slug) differences.push(['slug', `its slug is ${existing.slug}`])
  const [member] = await rows<MemberRow>(db, sql`SELECT * FROM ${core.tables.member}
    WHERE organization_id = ${existing.id} AND user_id = ${owner.id}`)
  if (member === undefined || !isOwner(member)) differences.push(['owner', `${owner.email} is not one of its owners`])
  if (differences.length === 0) return
  const texts = differences.map(([, text]) => text)
  const listed = texts.length === 1 ? texts[0]! : `${texts.slice(0, -1).join(', ')} and ${texts.at(-1)!}`
  throw new OrganizationStoreError('organization-differs', `organization ${existing.id} exists, and ${listed}: an import changes no organization that exists`, differences[0]![0])
}
