// Response shapes of the login routes, following better-auth 1.7 so its browser client works
// against tablegate unchanged.
import type { InvitationRow, MemberRow, OrganizationRow, UserRow } from './store/migrate.js'
import type { SessionRow } from './sessions.js'

export interface AuthUser {
  id: string
  email: string
  name: string
  image: string | null
  emailVerified: boolean
  createdAt: string
  updatedAt: string
  role: string
  banned: boolean
  banReason: string | null
  banExpires: null
}

export function authUser (user: UserRow): AuthUser {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    image: user.image,
    emailVerified: user.email_verified,
    createdAt: user.created_at.toISOString(),
    updatedAt: user.updated_at.toISOString(),
    role: user.role,
    banned: user.banned,
    banReason: user.ban_reason,
    banExpires: null,
  }
}

/**
 * better-auth's session record, less its `token`: the session token lives only in the HttpOnly
 * cookie, so no script can read it from a body.
 */
export interface AuthSession {
  id: string
  userId: string
  expiresAt: string
  createdAt: string
  updatedAt: string
  ipAddress: string | null
  userAgent: string | null
  /** With organizations only, as better-auth's organization plugin adds it. */
  activeOrganizationId?: string | null
}

export function authSession (session: SessionRow, organizations = false): AuthSession {
  return {
    ...(organizations ? { activeOrganizationId: session.active_organization_id } : {}),
    id: session.id,
    userId: session.user_id,
    expiresAt: session.expires_at.toISOString(),
    createdAt: session.created_at.toISOString(),
    // Sessions are not refreshed: one lasts 7 days from its sign-in.
    updatedAt: session.created_at.toISOString(),
    ipAddress: session.ip_address,
    userAgent: session.user_agent,
  }
}

/** better-auth's organization record. */
export interface AuthOrganization {
  id: string
  name: string
  slug: string
  logo: string | null
  metadata: Record<string, unknown> | null
  createdAt: string
}

export function authOrganization (organization: OrganizationRow): AuthOrganization {
  return {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    logo: organization.logo,
    metadata: organization.metadata,
    createdAt: organization.created_at.toISOString(),
  }
}

/** better-auth's member record: one user's membership of one organization. */
export interface AuthMember {
  id: string
  organizationId: string
  userId: string
  role: string
  createdAt: string
}

export function authMember (member: MemberRow): AuthMember {
  return {
    id: member.id,
    organizationId: member.organization_id,
    userId: member.user_id,
    role: member.role,
    createdAt: member.created_at.toISOString(),
  }
}

/** A member with the user's public fields, as better-auth lists members. */
export interface AuthMemberWithUser extends AuthMember {
  user: { id: string, name: string, email: string, image: null }
}

export function authMemberWithUser (member: MemberRow, user: Pick<UserRow, 'id' | 'name' | 'email'>): AuthMemberWithUser {
  return { ...authMember(member), user: { id: user.id, name: user.name, email: user.email, image: null } }
}

/** better-auth's invitation record. */
export interface AuthInvitation {
  id: string
  organizationId: string
  email: string
  role: string
  status: string
  inviterId: string | null
  expiresAt: string
  createdAt: string
}

export function authInvitation (invitation: InvitationRow): AuthInvitation {
  return {
    id: invitation.id,
    organizationId: invitation.organization_id,
    email: invitation.email,
    role: invitation.role,
    status: invitation.status,
    inviterId: invitation.inviter_id,
    expiresAt: invitation.expires_at.toISOString(),
    createdAt: invitation.created_at.toISOString(),
  }
}
