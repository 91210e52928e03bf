// What a signed-in user may do to an organization's members through better-auth 1.7's routes:
// list-members, get-active-member, get-active-member-role, update-member-role, remove-member and
// leave. Only owners and admins manage members, only owners touch owners, and the last owner can
// neither leave, be removed nor be demoted: each change runs under the organization's row lock, as
// the host operations do (organization-core.ts), so two owners acting at once never leave none.
import { sql, type Keyword, type Sql } from '../sql/sql.js'
import { rows, type Queryable } from '../db/query.js'
import type { MemberRow, OrganizationRow } from './store/migrate.js'
import { authMember, authMemberWithUser, type AuthMember, type AuthMemberWithUser } from './shapes.js'
import { normalizeEmail } from './users.js'
import { OWNER_ROLE } from '../config/organizations.js'
import { OrganizationStoreError, isOwner, parseRoles, type OrganizationCore } from './organization-core.js'
import { MAX_MEMBERS_PAGE, canManage, membership, membersWithUsers, type By, type OrganizationCaller, type OrganizationLookup } from './organization-actions.js'
import { invalidInput, orgRefusal } from './organization-codes.js'
import { authProblem } from './login.js'

export interface ListMembersQuery {
  limit?: number | undefined
  offset?: number | undefined
  sortBy?: string | undefined
  sortDirection?: 'asc' | 'desc' | undefined
  filterField?: string | undefined
  filterValue?: string | string[] | undefined
  filterOperator?: string | undefined
  organizationId?: string | undefined
  organizationSlug?: string | undefined
}

export interface MemberActions {
  list (caller: OrganizationCaller, query: ListMembersQuery): Promise<{ members: AuthMemberWithUser[], total: number }>
  active (caller: OrganizationCaller): Promise<AuthMemberWithUser>
  role (caller: OrganizationCaller, query: { userId?: string | undefined, organizationId?: string | undefined, organizationSlug?: string | undefined }): Promise<{ role: string }>
  updateRole (caller: OrganizationCaller, body: { role: string | string[], memberId: string, organizationId?: string | undefined }, by: By): Promise<AuthMember>
  remove (caller: OrganizationCaller, body: { memberIdOrEmail: string, organizationId?: string | undefined }, by: By): Promise<{ member: AuthMember }>
  leave (caller: OrganizationCaller, organizationId: string, by: By): Promise<AuthMemberWithUser>
}

// The member record's fields a list may sort and filter by (better-auth's names), and their columns.
const MEMBER_FIELDS: Readonly<Record<string, string>> = { id: 'id', userId: 'user_id', role: 'role', createdAt: 'created_at', organizationId: 'organization_id' }
const COMPARISONS: Readonly<Record<string, Keyword>> = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' }
const DEFAULT_LIMIT = 100

function badQuery (parameter: string, message: string): Error {
  return authProblem('invalid-parameter', 'VALIDATION_ERROR', message, { errors: [{ parameter, message }] })
}

function column (parameter: string, field: string): Sql {
  // Own members only: `constructor` or `toString` is a name asked for, not one of Object's.
  const name = Object.hasOwn(MEMBER_FIELDS, field) ? MEMBER_FIELDS[field] : undefined
  if (name === undefined) throw badQuery(parameter, `${parameter} must be one of ${Object.keys(MEMBER_FIELDS).join(', ')}`)
  return sql`m.${sql.ident(name)}`
}

function filterOf (query: ListMembersQuery): Sql {
  if (query.filterField === undefined || query.filterValue === undefined) return sql.empty
  const target = column('filterField', query.filterField)
  const operator = query.filterOperator ?? 'eq'
  const values = typeof query.filterValue === 'string' ? query.filterValue.split(',').map((v) => v.trim()) : query.filterValue
  if (values.some((v) => v.includes('\u0000'))) throw badQuery('filterValue', 'filterValue must not contain NUL characters')
  if (operator === 'in') return sql` AND ${target}::text = ANY (${values})`
  if (operator === 'not_in') return sql` AND NOT (${target}::text = ANY (${values}))`
  const comparison = Object.hasOwn(COMPARISONS, operator) ? COMPARISONS[operator] : undefined
  if (comparison === undefined) throw badQuery('filterOperator', `filterOperator must be one of ${[...Object.keys(COMPARISONS), 'in', 'not_in'].join(', ')}`)
  if (typeof query.filterValue !== 'string') throw badQuery('filterValue', `filterValue must be given once for ${operator}`)
  const value = query.filterField === 'createdAt' ? sql`${query.filterValue}::timestamptz` : sql`${query.filterValue}`
  if (query.filterField === 'createdAt' && Number.isNaN(Date.parse(query.filterValue))) throw badQuery('filterValue', 'filterValue must be an ISO 8601 timestamp for createdAt')
  return sql` AND ${target} ${sql.keyword(comparison)} ${value}`
}

export function memberActions (core: OrganizationCore): MemberActions {
  const { tables, settings } = core

  // The organization a call names, or the session's active one.
  const named = (caller: OrganizationCaller, given: { organizationId?: string | undefined, organizationSlug?: string | undefined }): OrganizationLookup => {
    if (given.organizationSlug !== undefined) return { slug: given.organizationSlug }
    const id = given.organizationId ?? caller.session.active_organization_id
    if (id === null) throw orgRefusal(400, 'NO_ACTIVE_ORGANIZATION')
    return { id }
  }

  // The caller's membership, the organization locked; a missing organization is a membership missing.
  const lockedMembership = async (db: Queryable, caller: OrganizationCaller, organizationId: string): Promise<{ organization: OrganizationRow, member: MemberRow }> => {
    const found = await membership(db, core, { id: organizationId }, caller.user.id, true)
    if (found === undefined) throw orgRefusal(400, 'MEMBER_NOT_FOUND')
    return found
  }

  const target = async (db: Queryable, organization: OrganizationRow, idOrEmail: string): Promise<MemberRow & { email: string }> => {
    let which: Sql
    if (idOrEmail.includes('@')) {
      let email: string
      try {
        email = normalizeEmail(idOrEmail)
      } catch {
        throw orgRefusal(400, 'MEMBER_NOT_FOUND')
      }
      which = sql`u.email = ${email}`
    } else {
      which = sql`m.id = ${idOrEmail}`
    }
    const [found] = await rows<MemberRow & { email: string }>(db, sql`SELECT m.*, u.email FROM ${tables.member} m JOIN ${tables.user} u ON u.id = m.user_id
      WHERE m.organization_id = ${organization.id} AND ${which}`)
    if (found === undefined) throw orgRefusal(400, 'MEMBER_NOT_FOUND')
    return found
  }

  const lastOwner = async (db: Queryable, organization: OrganizationRow, member: MemberRow & { email: string }, action: string, code: 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER' | 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER'): Promise<void> => {
    try {
      await core.guardLastOwner(db, organization, member, action, member)
    } catch (err) {
      if (err instanceof OrganizationStoreError && err.code === 'last-owner') throw orgRefusal(400, code)
      throw err
    }
  }

  const actions: MemberActions = {
    list: async (caller, query) => {
      const ref = named(caller, query)
      const found = await membership(core.pool, core, ref, caller.user.id)
      if (found === undefined) throw orgRefusal(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION')
      const where = sql`m.organization_id = ${found.organization.id}${filterOf(query)}`
      const order = query.sortBy === undefined ? sql`m.created_at, m.id` : sql`${column('sortBy', query.sortBy)} ${sql.keyword(query.sortDirection === 'desc' ? 'DESC' : 'ASC')}, m.id`
      const members = await membersWithUsers(core.pool, core, where, sql`ORDER BY ${order} LIMIT ${Math.min(query.limit ?? DEFAULT_LIMIT, MAX_MEMBERS_PAGE)} OFFSET ${query.offset ?? 0}`)
      const [counted] = await rows<{ total: number }>(core.pool, sql`SELECT count(*)::int AS total FROM ${tables.member} m WHERE ${where}`)
      return { members, total: counted!.total }
    },

    active: async (caller) => {
      const id = caller.session.active_organization_id
      if (id === null) throw orgRefusal(400, 'NO_ACTIVE_ORGANIZATION')
      const [found] = await membersWithUsers(core.pool, core, sql`m.organization_id = ${id} AND m.user_id = ${caller.user.id}`)
      if (found === undefined) throw orgRefusal(400, 'MEMBER_NOT_FOUND')
      return found
    },

    role: async (caller, query) => {
      const found = await membership(core.pool, core, named(caller, query), caller.user.id)
      if (found === undefined) throw orgRefusal(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION')
      if (query.userId === undefined) return { role: found.member.role }
      const [other] = await rows<MemberRow>(core.pool, sql`SELECT * FROM ${tables.member} WHERE organization_id = ${found.organization.id} AND user_id = ${query.userId}`)
      if (other === undefined) throw orgRefusal(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION')
      return { role: other.role }
    },

    updateRole: async (caller, body, by) => {
      const organizationId = body.organizationId ?? caller.session.active_organization_id
      if (organizationId === null) throw orgRefusal(400, 'NO_ACTIVE_ORGANIZATION')
      return await core.tx(async (db) => {
        const { organization, member } = await lockedMembership(db, caller, organizationId)
        if (!canManage(member)) throw orgRefusal(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER')
        const updating = await target(db, organization, body.memberId)
        let roles: string[]
        try {
          roles = parseRoles(settings.roles, body.role)
        } catch (err) {
          if (err instanceof OrganizationStoreError && err.code === 'invalid-role') {
            const unknown = (typeof body.role === 'string' ? body.role.split(',') : body.role).map((r) => r.trim()).filter((r) => !settings.roles.includes(r))
            throw orgRefusal(400, 'ROLE_NOT_FOUND', `ROLE_NOT_FOUND: ${unknown.join(', ')}`)
          }
          if (err instanceof OrganizationStoreError) throw invalidInput(err)
          throw err
        }
        // Only an owner makes an owner or changes one.
        if ((isOwner(updating) || roles.includes(OWNER_ROLE)) && !isOwner(member)) throw orgRefusal(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER')
        if (!roles.includes(OWNER_ROLE)) await lastOwner(db, organization, updating, 'demote', 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER')
        const { email: _email, ...row } = updating
        return authMember(await core.updateRoles(db, row, roles, by))
      })
    },

    remove: async (caller, body, by) => {
      const organizationId = body.organizationId ?? caller.session.active_organization_id
      if (organizationId === null) throw orgRefusal(400, 'NO_ACTIVE_ORGANIZATION')
      return await core.tx(async (db) => {
        const { organization, member } = await lockedMembership(db, caller, organizationId)
        if (!canManage(member)) throw orgRefusal(403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER')
        const removing = await target(db, organization, body.memberIdOrEmail)
        if (isOwner(removing) && !isOwner(member)) throw orgRefusal(403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER')
        await lastOwner(db, organization, removing, 'remove', 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER')
        const { email: _email, ...row } = removing
        await core.deleteMember(db, organization, row, by)
        return { member: authMember(row) }
      })
    },

    leave: async (caller, organizationId, by) => {
      return await core.tx(async (db) => {
        const { organization, member } = await lockedMembership(db, caller, organizationId)
        await lastOwner(db, organization, { ...member, email: caller.user.email }, 'remove', 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER')
        await core.deleteMember(db, organization, member, by)
        return authMemberWithUser(member, caller.user)
      })
    },
  }
  return Object.freeze(actions)
}
