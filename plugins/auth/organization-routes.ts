// better-auth 1.7's organization plugin routes (under /api/auth/organization), for signed-in users:
// the body and query schemas, and who calls. What each may do is decided in
// lib/auth/organization-actions.ts and member-actions.ts, through the same store as the host's.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { OrganizationCore } from '../../lib/auth/organization-core.js'
import { organizationActions, type OrganizationCaller } from '../../lib/auth/organization-actions.js'
import { memberActions } from '../../lib/auth/member-actions.js'
import { invitationActions } from '../../lib/auth/invitation-actions.js'
import { signInRequired } from '../../lib/auth/organization-codes.js'
import { rolesOf } from '../../lib/config/roles.js'
import type { SessionCookies } from './callers.js'

const Id = Type.String({ minLength: 1, maxLength: 200 })
const Name = Type.String({ minLength: 1, maxLength: 200 })
const Slug = Type.String({ minLength: 1, maxLength: 200 })
const Logo = Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])
const Metadata = Type.Record(Type.String(), Type.Unknown())
// Query strings are not coerced: a count is digits, read as a number here.
const Count = Type.String({ pattern: '^[0-9]{1,6}$' })
const Role = Type.Union([Type.String({ maxLength: 1000 }), Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })])

const CreateBody = Type.Object({
  name: Name,
  slug: Slug,
  // Server-only in better-auth: over HTTP the signed-in user is the creator, whatever this says.
  userId: Type.Optional(Type.String({ maxLength: 200 })),
  logo: Type.Optional(Logo),
  metadata: Type.Optional(Metadata),
  keepCurrentActiveOrganization: Type.Optional(Type.Boolean()),
})
const CheckSlugBody = Type.Object({ slug: Type.String({ maxLength: 200 }) })
const SetActiveBody = Type.Object({
  organizationId: Type.Optional(Type.Union([Id, Type.Null()])),
  organizationSlug: Type.Optional(Slug),
})
const FullQuery = Type.Object({
  organizationId: Type.Optional(Id),
  organizationSlug: Type.Optional(Slug),
  membersLimit: Type.Optional(Count),
})
const UpdateBody = Type.Object({
  data: Type.Object({ name: Type.Optional(Name), slug: Type.Optional(Slug), logo: Type.Optional(Logo), metadata: Type.Optional(Metadata) }),
  organizationId: Type.Optional(Id),
})
const OrganizationIdBody = Type.Object({ organizationId: Id })
const ListMembersQuery = Type.Object({
  limit: Type.Optional(Count),
  offset: Type.Optional(Count),
  sortBy: Type.Optional(Type.String({ maxLength: 100 })),
  sortDirection: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  filterField: Type.Optional(Type.String({ maxLength: 100 })),
  filterValue: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 100 })])),
  filterOperator: Type.Optional(Type.String({ maxLength: 20 })),
  organizationId: Type.Optional(Id),
  organizationSlug: Type.Optional(Slug),
})
const MemberRoleQuery = Type.Object({ userId: Type.Optional(Id), organizationId: Type.Optional(Id), organizationSlug: Type.Optional(Slug) })
const UpdateMemberRoleBody = Type.Object({ role: Role, memberId: Id, organizationId: Type.Optional(Id) })
const InviteBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  role: Role,
  organizationId: Type.Optional(Id),
  resend: Type.Optional(Type.Boolean()),
})
const InvitationIdBody = Type.Object({ invitationId: Id })
const InvitationQuery = Type.Object({ id: Id })
const ListInvitationsQuery = Type.Object({ organizationId: Type.Optional(Id) })
// better-auth takes `email` from a server call only; from a client it is refused.
const UserInvitationsQuery = Type.Object({ email: Type.Optional(Type.Never()) })
const RemoveMemberBody = Type.Object({ memberIdOrEmail: Type.String({ minLength: 1, maxLength: 320 }), organizationId: Type.Optional(Id) })

const countOf = (value: string | undefined): number | undefined => value === undefined ? undefined : Number(value)

export interface OrganizationRouteOptions {
  readonly store: OrganizationCore
  readonly cookies: SessionCookies
  /** Reads the revocations now: this process applies a membership change to tokens at once. */
  readonly refreshRevocations: () => Promise<void>
}

export async function organizationRoutes (app: FastifyInstance, options: OrganizationRouteOptions): Promise<void> {
  const { store, cookies, refreshRevocations } = options
  const organizations = organizationActions(store)
  const members = memberActions(store)
  const invitations = invitationActions(store)

  // The caller is the session's user (the active organization is the session's); the write hooks
  // of their changes see them as ctx.user.
  const signedIn = async (request: FastifyRequest): Promise<void> => {
    const found = await cookies.session(request)
    if (found === undefined) throw signInRequired()
    request.ctx.user = { id: found.user.id, roles: rolesOf(found.user.role) }
    callers.set(request, found)
  }
  const callers = new WeakMap<FastifyRequest, OrganizationCaller>()
  const caller = (request: FastifyRequest): OrganizationCaller => callers.get(request)!
  const by = (request: FastifyRequest) => request.ctx
  // Judged before the body is parsed: an anonymous caller learns nothing of what a body must hold.
  const route = { config: { public: true }, onRequest: signedIn }
  const noStore = { 'cache-control': 'no-store' }
  // A change that narrows tokens (a member removed or demoted, an organization deleted) holds here
  // at once, not at the next poll; the poll reads it later if this read fails.
  const revoking = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work()
    } finally {
      await refreshRevocations().catch(() => {})
    }
  }

  app.post('/create', { ...route, schema: { body: CreateBody } }, async (request) => {
    return await organizations.create(caller(request), request.body as typeof CreateBody.static, by(request))
  })

  app.get('/list', route, async (request, reply) => {
    void reply.headers(noStore)
    return await organizations.list(caller(request))
  })

  app.post('/check-slug', { ...route, schema: { body: CheckSlugBody } }, async (request) => {
    return await organizations.checkSlug((request.body as typeof CheckSlugBody.static).slug)
  })

  app.post('/set-active', { ...route, preValidation: async (request) => { request.body ??= {} }, schema: { body: SetActiveBody } }, async (request) => {
    return await organizations.setActive(caller(request), request.body as typeof SetActiveBody.static)
  })

  app.get('/get-full-organization', { ...route, schema: { querystring: FullQuery } }, async (request, reply) => {
    void reply.headers(noStore)
    const query = request.query as typeof FullQuery.static
    return await organizations.getFull(caller(request), { ...query, membersLimit: countOf(query.membersLimit) })
  })

  app.post('/update', { ...route, schema: { body: UpdateBody } }, async (request) => {
    return await organizations.update(caller(request), request.body as typeof UpdateBody.static, by(request))
  })

  app.post('/delete', { ...route, schema: { body: OrganizationIdBody } }, async (request) => {
    return await revoking(async () => await organizations.delete(caller(request), (request.body as typeof OrganizationIdBody.static).organizationId, by(request)))
  })

  app.get('/list-members', { ...route, schema: { querystring: ListMembersQuery } }, async (request, reply) => {
    void reply.headers(noStore)
    const query = request.query as typeof ListMembersQuery.static
    return await members.list(caller(request), { ...query, limit: countOf(query.limit), offset: countOf(query.offset) })
  })

  app.get('/get-active-member', route, async (request, reply) => {
    void reply.headers(noStore)
    return await members.active(caller(request))
  })

  app.get('/get-active-member-role', { ...route, schema: { querystring: MemberRoleQuery } }, async (request, reply) => {
    void reply.headers(noStore)
    return await members.role(caller(request), request.query as typeof MemberRoleQuery.static)
  })

  app.post('/update-member-role', { ...route, schema: { body: UpdateMemberRoleBody } }, async (request) => {
    return await revoking(async () => await members.updateRole(caller(request), request.body as typeof UpdateMemberRoleBody.static, by(request)))
  })

  app.post('/remove-member', { ...route, schema: { body: RemoveMemberBody } }, async (request) => {
    return await revoking(async () => await members.remove(caller(request), request.body as typeof RemoveMemberBody.static, by(request)))
  })

  app.post('/leave', { ...route, schema: { body: OrganizationIdBody } }, async (request) => {
    return await revoking(async () => await members.leave(caller(request), (request.body as typeof OrganizationIdBody.static).organizationId, by(request)))
  })

  app.post('/invite-member', { ...route, schema: { body: InviteBody } }, async (request) => {
    return await invitations.invite(caller(request), request.body as typeof InviteBody.static)
  })

  app.get('/get-invitation', { ...route, schema: { querystring: InvitationQuery } }, async (request, reply) => {
    void reply.headers(noStore)
    return await invitations.get(caller(request), (request.query as typeof InvitationQuery.static).id)
  })

  app.get('/list-invitations', { ...route, schema: { querystring: ListInvitationsQuery } }, async (request, reply) => {
    void reply.headers(noStore)
    return await invitations.list(caller(request), (request.query as typeof ListInvitationsQuery.static).organizationId)
  })

  app.get('/list-user-invitations', { ...route, schema: { querystring: UserInvitationsQuery } }, async (request, reply) => {
    void reply.headers(noStore)
    return await invitations.listMine(caller(request))
  })

  app.post('/accept-invitation', { ...route, schema: { body: InvitationIdBody } }, async (request) => {
    return await invitations.accept(caller(request), (request.body as typeof InvitationIdBody.static).invitationId, by(request))
  })

  app.post('/reject-invitation', { ...route, schema: { body: InvitationIdBody } }, async (request) => {
    return await invitations.reject(caller(request), (request.body as typeof InvitationIdBody.static).invitationId)
  })

  app.post('/cancel-invitation', { ...route, schema: { body: InvitationIdBody } }, async (request) => {
    return await invitations.cancel(caller(request), (request.body as typeof InvitationIdBody.static).invitationId)
  })
}
