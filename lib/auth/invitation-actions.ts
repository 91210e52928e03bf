// Invitations through better-auth 1.7's routes: invite-member, get-invitation, list-invitations,
// list-user-invitations, accept-invitation, reject-invitation and cancel-invitation. An invitation
// names an email; only the signed-in user with that email may see, accept or reject it; it expires
// after `organizations.invitationExpiresIn`; tablegate sends no mail: `onInvitation` is handed each
// new (or resent) invitation inside the transaction that makes it, so one it cannot take is undone.
import { sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'
import type { InvitationRow, OrganizationRow } from './store/migrate.js'
import { authInvitation, authMember, type AuthInvitation, type AuthMember } from './shapes.js'
import { normalizeEmail } from './users.js'
import { authProblem } from './login.js'
import { OWNER_ROLE } from '../config/organizations.js'
import { OrganizationStoreError, isOwner, newId, parseRoles, roleList, type OrganizationCore } from './organization-core.js'
import { canManage, membership, type By, type OrganizationCaller } from './organization-actions.js'
import { orgRefusal } from './organization-codes.js'

/** The most pending invitations one organization holds (better-auth's default `invitationLimit`). */
export const INVITATION_LIMIT = 100

export interface InviteBody {
  email: string
  role: string | string[]
  organizationId?: string | undefined
  resend?: boolean | undefined
}

export type InvitationDetails = AuthInvitation & { organizationName: string, organizationSlug: string, inviterEmail: string }

export interface InvitationActions {
  invite (caller: OrganizationCaller, body: InviteBody): Promise<AuthInvitation>
  get (caller: OrganizationCaller, id: string): Promise<InvitationDetails>
  list (caller: OrganizationCaller, organizationId: string | undefined): Promise<AuthInvitation[]>
  listMine (caller: OrganizationCaller): Promise<Array<AuthInvitation & { organizationName: string }>>
  accept (caller: OrganizationCaller, id: string, by: By): Promise<{ invitation: AuthInvitation, member: AuthMember }>
  reject (caller: OrganizationCaller, id: string): Promise<{ invitation: AuthInvitation, member: null }>
  cancel (caller: OrganizationCaller, id: string): Promise<AuthInvitation>
}

const usable = (invitation: InvitationRow | undefined): invitation is InvitationRow =>
  invitation !== undefined && invitation.status === 'pending' && invitation.expires_at.getTime() > Date.now()

export function invitationActions (core: OrganizationCore): InvitationActions {
  const { tables, settings } = core

  const invitationById = async (db: Queryable, id: string, lock = false): Promise<InvitationRow | undefined> => {
    const [found] = await rows<InvitationRow>(db, sql`SELECT * FROM ${tables.invitation} WHERE id = ${id} ${lock ? sql`FOR UPDATE` : sql.empty}`)
    return found
  }
  const setStatus = async (db: Queryable, id: string, status: InvitationRow['status']): Promise<InvitationRow> => {
    const [updated] = await rows<InvitationRow>(db, sql`UPDATE ${tables.invitation} SET status = ${status} WHERE id = ${id} RETURNING *`)
    return updated!
  }
  // Only the signed-in user the invitation names may see or answer it; one who made their own
  // account (sign-up) only once they have shown the address is theirs, or anyone could sign up as
  // an invited address and take the invitation.
  const addressedTo = (caller: OrganizationCaller, invitation: InvitationRow, answering: boolean): void => {
    if (invitation.email !== caller.user.email) throw orgRefusal(403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION')
    provenAddress(caller, answering)
  }
  const provenAddress = (caller: OrganizationCaller, answering: boolean): void => {
    if (!caller.user.signed_up || caller.user.email_verified) return
    throw orgRefusal(403, answering ? 'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION' : 'EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION')
  }
  const notify = async (organization: OrganizationRow, invitation: InvitationRow, caller: OrganizationCaller): Promise<void> => {
    await settings.onInvitation?.({
      id: invitation.id,
      email: invitation.email,
      role: invitation.role,
      organization: { id: organization.id, name: organization.name, slug: organization.slug },
      inviter: { id: caller.user.id, email: caller.user.email, name: caller.user.name },
      expiresAt: invitation.expires_at,
    })
  }

  const actions: InvitationActions = {
    invite: async (caller, body) => {
      const organizationId = body.organizationId ?? caller.session.active_organization_id
      if (organizationId === null) throw orgRefusal(400, 'ORGANIZATION_NOT_FOUND')
      let email: string
      try {
        email = normalizeEmail(body.email)
      } catch {
        throw authProblem('invalid-record', 'INVALID_EMAIL', 'Invalid email')
      }
      return await core.tx(async (db) => {
        const found = await membership(db, core, { id: organizationId }, caller.user.id, true)
        if (found === undefined) throw orgRefusal(400, 'MEMBER_NOT_FOUND')
        const { organization, member } = found
        if (!canManage(member)) throw orgRefusal(403, 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION')
        let roles: string[]
        try {
          roles = parseRoles(settings.roles, body.role)
        } catch (err) {
          if (!(err instanceof OrganizationStoreError)) throw err
          const unknown = (typeof body.role === 'string' ? body.role.split(',') : body.role).map((r) => r.trim()).filter((r) => r !== '' && !settings.roles.includes(r))
          throw orgRefusal(400, 'ROLE_NOT_FOUND', unknown.length === 0 ? undefined : `ROLE_NOT_FOUND: ${unknown.join(', ')}`)
        }
        if (roles.includes(OWNER_ROLE) && !isOwner(member)) throw orgRefusal(403, 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE')
        const [joined] = await rows(db, sql`SELECT 1 FROM ${tables.member} m JOIN ${tables.user} u ON u.id = m.user_id
          WHERE m.organization_id = ${organization.id} AND u.email = ${email}`)
        if (joined !== undefined) throw orgRefusal(400, 'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION')
        const expiresAt = new Date(Date.now() + settings.invitationExpiresIn * 1000)
        const [pending] = await rows<InvitationRow>(db, sql`SELECT * FROM ${tables.invitation}
          WHERE organization_id = ${organization.id} AND email = ${email} AND status = 'pending' AND expires_at > now() ORDER BY created_at DESC LIMIT 1`)
        if (pending !== undefined) {
          if (body.resend !== true) throw orgRefusal(400, 'USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION')
          if (isOwner(pending) && !isOwner(member)) throw orgRefusal(403, 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE')
          const [resent] = await rows<InvitationRow>(db, sql`UPDATE ${tables.invitation} SET expires_at = ${expiresAt} WHERE id = ${pending.id} RETURNING *`)
          await notify(organization, resent!, caller)
          return authInvitation(resent!)
        }
        const [counted] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM ${tables.invitation}
          WHERE organization_id = ${organization.id} AND status = 'pending' AND expires_at > now()`)
        if (counted!.n >= INVITATION_LIMIT) throw orgRefusal(403, 'INVITATION_LIMIT_REACHED')
        const [invitation] = await rows<InvitationRow>(db, sql`INSERT INTO ${tables.invitation} (id, organization_id, email, role, inviter_id, expires_at)
          VALUES (${newId()}, ${organization.id}, ${email}, ${roles.join(',')}, ${caller.user.id}, ${expiresAt}) RETURNING *`)
        await notify(organization, invitation!, caller)
        return authInvitation(invitation!)
      })
    },

    get: async (caller, id) => {
      const invitation = await invitationById(core.pool, id)
      if (!usable(invitation)) throw orgRefusal(400, 'INVITATION_NOT_FOUND')
      addressedTo(caller, invitation, false)
      type Found = OrganizationRow & { inviter_email: string | null }
      const [found] = await rows<Found>(core.pool, sql`SELECT o.*, u.email AS inviter_email FROM ${tables.organization} o
        LEFT JOIN ${tables.member} m ON m.organization_id = o.id AND m.user_id = ${invitation.inviter_id}
        LEFT JOIN ${tables.user} u ON u.id = m.user_id WHERE o.id = ${invitation.organization_id}`)
      if (found?.inviter_email == null) throw orgRefusal(400, 'INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION')
      return { ...authInvitation(invitation), organizationName: found.name, organizationSlug: found.slug, inviterEmail: found.inviter_email }
    },

    list: async (caller, organizationId) => {
      const id = organizationId ?? caller.session.active_organization_id
      if (id === null) throw orgRefusal(400, 'NO_ACTIVE_ORGANIZATION')
      const found = await membership(core.pool, core, { id }, caller.user.id)
      if (found === undefined) throw orgRefusal(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION')
      if (!canManage(found.member)) throw orgRefusal(403, 'YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS')
      const invitations = await rows<InvitationRow>(core.pool, sql`SELECT * FROM ${tables.invitation} WHERE organization_id = ${id} ORDER BY created_at, id`)
      // Only an owner sees the invitations that would make an owner.
      return invitations.filter((i) => isOwner(found.member) || !roleList(i.role).includes(OWNER_ROLE)).map(authInvitation)
    },

    listMine: async (caller) => {
      provenAddress(caller, false)
      const found = await rows<InvitationRow & { organization_name: string }>(core.pool, sql`SELECT i.*, o.name AS organization_name
        FROM ${tables.invitation} i JOIN ${tables.organization} o ON o.id = i.organization_id
        WHERE i.email = ${caller.user.email} AND i.status = 'pending' AND i.expires_at > now() ORDER BY i.created_at, i.id`)
      return found.map((i) => ({ ...authInvitation(i), organizationName: i.organization_name }))
    },

    accept: async (caller, id, by) => {
      return await core.tx(async (db) => {
        // The organization is locked before the invitation, in the order invite-member takes them.
        const seen = await invitationById(db, id)
        if (!usable(seen)) throw orgRefusal(400, 'INVITATION_NOT_FOUND')
        addressedTo(caller, seen, true)
        const organization = await core.lockedOrganization(db, { id: seen.organization_id })
        const invitation = await invitationById(db, id, true)
        if (!usable(invitation)) throw orgRefusal(400, 'INVITATION_NOT_FOUND')
        const user = await core.userOf(db, { id: caller.user.id }, 'userId')
        let member
        try {
          member = await core.insertMember(db, organization, user, roleList(invitation.role), by)
        } catch (err) {
          if (err instanceof OrganizationStoreError && err.code === 'already-member') throw orgRefusal(400, 'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION')
          throw err
        }
        const accepted = await setStatus(db, id, 'accepted')
        await query(db, sql`UPDATE ${tables.session} SET active_organization_id = ${organization.id} WHERE id = ${caller.session.id}`)
        return { invitation: authInvitation(accepted), member: authMember(member) }
      })
    },

    reject: async (caller, id) => {
      return await core.tx(async (db) => {
        const invitation = await invitationById(db, id, true)
        if (invitation === undefined || invitation.status !== 'pending') throw orgRefusal(400, 'INVITATION_NOT_FOUND')
        addressedTo(caller, invitation, true)
        return { invitation: authInvitation(await setStatus(db, id, 'rejected')), member: null }
      })
    },

    cancel: async (caller, id) => {
      return await core.tx(async (db) => {
        const invitation = await invitationById(db, id, true)
        // A non-member learns nothing of an invitation: it is one that is not there.
        const found = invitation === undefined || invitation.status !== 'pending' ? undefined : await membership(db, core, { id: invitation.organization_id }, caller.user.id)
        if (found === undefined) throw orgRefusal(400, 'INVITATION_NOT_FOUND')
        if (!canManage(found.member) || (isOwner(invitation!) && !isOwner(found.member))) throw orgRefusal(403, 'YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION')
        return authInvitation(await setStatus(db, id, 'canceled'))
      })
    },
  }
  return Object.freeze(actions)
}
