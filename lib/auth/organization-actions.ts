// What a signed-in user may do to organizations through better-auth 1.7's organization routes
// (docs/organizations.md, "Routes"): create, list, check-slug, set-active, get-full-organization,
// update and delete. Each takes the caller's live session and answers better-auth's shapes, or throws
// a problem with its codes. A non-member is told exactly what a caller naming a missing organization
// is told: nothing here says whether an organization they do not belong to exists.
import { endOrganizationTokens } from './revocations.js'
import { sql, type Sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'
import type { MemberRow, OrganizationRow, UserRow, InvitationRow } from './store/migrate.js'
import type { SessionRow } from './sessions.js'
import type { ChangeOptions } from './users.js'
import { authInvitation, authMember, authMemberWithUser, authOrganization, type AuthInvitation, type AuthMember, type AuthMemberWithUser, type AuthOrganization } from './shapes.js'
import { OWNER_ROLE } from '../config/organizations.js'
import {
  ORGANIZATIONS_RESOURCE, OrganizationStoreError, checkLogo, checkMetadata, checkName, checkSlug, isOwner, roleList,
  type OrganizationCore,
} from './organization-core.js'
import { checked, orgRefusal } from './organization-codes.js'

/** The signed-in user behind a route call, with their session. */
export interface OrganizationCaller {
  readonly user: UserRow
  readonly session: SessionRow
}

export type By = ChangeOptions['by']

/** Owners and admins manage an organization's members and invitations, and update it; only owners delete it. */
export function canManage (member: Pick<MemberRow, 'role'>): boolean {
  return roleList(member.role).some((r) => r === OWNER_ROLE || r === 'admin')
}

export type OrganizationLookup = { readonly id: string } | { readonly slug: string }

/** The organization and the user's membership of it; undefined when either is missing. */
export async function membership (db: Queryable, core: OrganizationCore, ref: OrganizationLookup, userId: string, lock = false): Promise<{ organization: OrganizationRow, member: MemberRow } | undefined> {
  const where = 'id' in ref ? sql`o.id = ${ref.id}` : sql`o.slug = ${ref.slug}`
  type Joined = OrganizationRow & { member_id: string, member_role: string, member_created_at: Date }
  // Locked first, read after: a membership read in the locking statement could be the one from
  // before a change that held the lock, so a member demoted a moment ago would act as before.
  if (lock) await query(db, sql`SELECT 1 FROM ${core.tables.organization} o WHERE ${where} FOR UPDATE`)
  const [found] = await rows<Joined>(db, sql`SELECT o.*, m.id AS member_id, m.role AS member_role, m.created_at AS member_created_at
    FROM ${core.tables.organization} o JOIN ${core.tables.member} m ON m.organization_id = o.id AND m.user_id = ${userId}
    WHERE ${where}`)
  if (found === undefined) return undefined
  const { member_id: id, member_role: role, member_created_at: createdAt, ...organization } = found
  return { organization, member: { id, organization_id: organization.id, user_id: userId, role, created_at: createdAt } }
}

/** Members with their users' public fields, oldest first. */
export async function membersWithUsers (db: Queryable, core: OrganizationCore, where: Sql, tail: Sql = sql.empty): Promise<AuthMemberWithUser[]> {
  const found = await rows<MemberRow & { user_name: string, user_email: string }>(db, sql`SELECT m.*, u.name AS user_name, u.email AS user_email
    FROM ${core.tables.member} m JOIN ${core.tables.user} u ON u.id = m.user_id WHERE ${where} ${tail}`)
  return found.map((m) => authMemberWithUser(m, { id: m.user_id, name: m.user_name, email: m.user_email }))
}

export interface CreateBody {
  name: string
  slug: string
  logo?: string | null | undefined
  metadata?: Record<string, unknown> | undefined
  keepCurrentActiveOrganization?: boolean | undefined
}

export interface UpdateBody {
  data: { name?: string | undefined, slug?: string | undefined, logo?: string | null | undefined, metadata?: Record<string, unknown> | undefined }
  organizationId?: string | undefined
}

export type FullOrganization = AuthOrganization & { members: AuthMemberWithUser[], invitations: AuthInvitation[] }

export interface FullOrganizationQuery {
  organizationId?: string | undefined
  organizationSlug?: string | undefined
  membersLimit?: number | undefined
}

export interface OrganizationActions {
  create (caller: OrganizationCaller, body: CreateBody, by: By): Promise<AuthOrganization & { members: AuthMember[] }>
  list (caller: OrganizationCaller): Promise<AuthOrganization[]>
  checkSlug (slug: string): Promise<{ status: true }>
  setActive (caller: OrganizationCaller, body: { organizationId?: string | null | undefined, organizationSlug?: string | undefined }): Promise<AuthOrganization | null>
  getFull (caller: OrganizationCaller, query: FullOrganizationQuery): Promise<FullOrganization | null>
  update (caller: OrganizationCaller, body: UpdateBody, by: By): Promise<AuthOrganization>
  delete (caller: OrganizationCaller, organizationId: string, by: By): Promise<AuthOrganization>
}

const DEFAULT_MEMBERS_LIMIT = 100
/** Past it a page of members is coerced to it, as resource lists are (AIP-158). */
export const MAX_MEMBERS_PAGE = 1000

export function organizationActions (core: OrganizationCore): OrganizationActions {
  const { tables, settings } = core
  const setActive = async (db: Queryable, session: SessionRow, organizationId: string | null): Promise<void> => {
    await query(db, sql`UPDATE ${tables.session} SET active_organization_id = ${organizationId} WHERE id = ${session.id}`)
  }

  const actions: OrganizationActions = {
    create: async (caller, body, by) => {
      if (!settings.allowUserToCreate) throw orgRefusal(403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION')
      const input = checked(() => ({ name: checkName(body.name), slug: checkSlug(body.slug), logo: checkLogo(body.logo), metadata: checkMetadata(body.metadata) }))
      return await core.tx(async (db) => {
        const user = await core.userOf(db, { id: caller.user.id }, 'userId')
        let created
        try {
          created = await core.insertOrganization(db, input, user.id, settings.creatorRole, by)
        } catch (err) {
          if (err instanceof OrganizationStoreError && err.code === 'slug-taken') throw orgRefusal(400, 'ORGANIZATION_ALREADY_EXISTS')
          throw err
        }
        if (body.keepCurrentActiveOrganization !== true) await setActive(db, caller.session, created.organization.id)
        return { ...authOrganization(created.organization), members: [authMember(created.member)] }
      })
    },

    list: async (caller) => {
      const found = await rows<OrganizationRow>(core.pool, sql`SELECT o.* FROM ${tables.organization} o
        JOIN ${tables.member} m ON m.organization_id = o.id WHERE m.user_id = ${caller.user.id} ORDER BY o.created_at, o.id`)
      return found.map(authOrganization)
    },

    // Reveals whether a slug is taken, as better-auth's does: that is all a non-member learns.
    checkSlug: async (slug) => {
      checked(() => checkSlug(slug))
      const [taken] = await rows(core.pool, sql`SELECT 1 FROM ${tables.organization} WHERE slug = ${slug}`)
      if (taken !== undefined) throw orgRefusal(400, 'ORGANIZATION_SLUG_ALREADY_TAKEN')
      return { status: true as const }
    },

    setActive: async (caller, body) => {
      const active = caller.session.active_organization_id
      if (body.organizationId === null || (body.organizationId === undefined && body.organizationSlug === undefined && active === null)) {
        if (active !== null) await setActive(core.pool, caller.session, null)
        return null
      }
      const ref: OrganizationLookup = body.organizationId !== undefined ? { id: body.organizationId } : body.organizationSlug !== undefined ? { slug: body.organizationSlug } : { id: active! }
      const made = await core.tx(async (db) => {
        const found = await membership(db, core, ref, caller.user.id)
        // Set only while the membership holds: a removal committed meanwhile clears it again.
        const [set] = found === undefined
          ? []
          : await rows(db, sql`UPDATE ${tables.session} s SET active_organization_id = ${found.organization.id} WHERE s.id = ${caller.session.id}
              AND EXISTS (SELECT 1 FROM ${tables.member} m WHERE m.id = ${found.member.id}) RETURNING s.id`)
        return found === undefined || set === undefined ? undefined : authOrganization(found.organization)
      })
      if (made !== undefined) return made
      // Refused, the session leaves its organization (as better-auth's does), outside the
      // transaction the refusal would roll back.
      if (active !== null) await setActive(core.pool, caller.session, null)
      throw orgRefusal(403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION')
    },

    getFull: async (caller, asked) => {
      const active = caller.session.active_organization_id
      const ref: OrganizationLookup | undefined = asked.organizationSlug !== undefined
        ? { slug: asked.organizationSlug }
        : asked.organizationId !== undefined ? { id: asked.organizationId } : active === null ? undefined : { id: active }
      if (ref === undefined) return null
      const found = await membership(core.pool, core, ref, caller.user.id)
      if (found === undefined) throw orgRefusal(403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION')
      const { organization, member } = found
      const limit = Math.min(asked.membersLimit ?? DEFAULT_MEMBERS_LIMIT, MAX_MEMBERS_PAGE)
      const members = await membersWithUsers(core.pool, core, sql`m.organization_id = ${organization.id}`, sql`ORDER BY m.created_at, m.id LIMIT ${limit}`)
      // Invitation ids are links that let their email join: only those who may invite see them, and
      // only an owner sees those that would make an owner.
      let invitations: AuthInvitation[] = []
      if (canManage(member)) {
        const found = await rows<InvitationRow>(core.pool, sql`SELECT * FROM ${tables.invitation} WHERE organization_id = ${organization.id} ORDER BY created_at, id`)
        invitations = found.filter((i) => isOwner(member) || !roleList(i.role).includes(OWNER_ROLE)).map(authInvitation)
      }
      return { ...authOrganization(organization), members, invitations }
    },

    update: async (caller, body, by) => {
      const organizationId = body.organizationId ?? caller.session.active_organization_id
      if (organizationId === null) throw orgRefusal(400, 'ORGANIZATION_NOT_FOUND')
      return await core.tx(async (db) => {
        const found = await membership(db, core, { id: organizationId }, caller.user.id, true)
        if (found === undefined) throw orgRefusal(400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION')
        if (!canManage(found.member)) throw orgRefusal(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION')
        const { data } = body
        const sets = checked(() => [
          ...(data.name !== undefined ? [sql`name = ${checkName(data.name)}`] : []),
          ...(data.slug !== undefined ? [sql`slug = ${checkSlug(data.slug)}`] : []),
          ...(data.logo !== undefined ? [sql`logo = ${checkLogo(data.logo)}`] : []),
          ...(data.metadata !== undefined ? [sql`metadata = ${checkMetadata(data.metadata)}`] : []),
        ])
        if (sets.length === 0) return authOrganization(found.organization)
        let updated: OrganizationRow | undefined
        try {
          [updated] = await rows<OrganizationRow>(db, sql`UPDATE ${tables.organization} SET ${sql.join(sets, sql`, `)} WHERE id = ${organizationId} RETURNING *`)
        } catch (err) {
          // The slug's unique key: another organization has it (or is taking it now).
          if ((err as { code?: unknown }).code === '23505') throw orgRefusal(400, 'ORGANIZATION_SLUG_ALREADY_TAKEN')
          throw err
        }
        await core.changed(db, ORGANIZATIONS_RESOURCE, 'update', { ...authOrganization(found.organization) }, { ...authOrganization(updated!) }, by)
        return authOrganization(updated!)
      })
    },

    delete: async (caller, organizationId, by) => {
      return await core.tx(async (db) => {
        const found = await membership(db, core, { id: organizationId }, caller.user.id, true)
        if (found === undefined) throw orgRefusal(400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION')
        if (!isOwner(found.member)) throw orgRefusal(403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION')
        // Members and invitations go with it, and it stops being any session's active organization
        // (the foreign keys); its members' tokens stop acting in it within the revocation bound.
        await endOrganizationTokens(db, tables, organizationId)
        await query(db, sql`DELETE FROM ${tables.organization} WHERE id = ${organizationId}`)
        await core.changed(db, ORGANIZATIONS_RESOURCE, 'delete', { ...authOrganization(found.organization) }, undefined, by)
        return authOrganization(found.organization)
      })
    },
  }
  return Object.freeze(actions)
}
