// better-auth 1.7's admin plugin routes (under /api/auth/admin), for admins only: create-user,
// list-users, set-role, ban-user, unban-user, remove-user and revoke-user-sessions. Every change
// goes through the user store, so the role list, the last active admin and the write hooks hold
// here exactly as on the host; refusals carry better-auth's codes.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { UserStoreError, type UserStore } from '../../lib/auth/users.js'
import { authProblem, userStoreProblem } from '../../lib/auth/login.js'
import { authUser } from '../../lib/auth/shapes.js'
import { listUserPage, UserListError } from '../../lib/auth/user-list.js'
import { ADMIN_ROLE } from '../../lib/config/roles.js'
import type { CallerUser } from '../../lib/principal.js'
import type { Verifier } from '../../lib/auth/verifier.js'
import { adminRouteCaller, type SessionCookies } from './callers.js'

const Role = Type.Union([Type.String({ maxLength: 1000 }), Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })])
const UserId = Type.String({ minLength: 1, maxLength: 200 })

const CreateUserBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  role: Type.Optional(Role),
  data: Type.Optional(Type.Object({})),
})
const SetRoleBody = Type.Object({ userId: UserId, role: Role })
const BanUserBody = Type.Object({
  userId: UserId,
  banReason: Type.Optional(Type.String({ maxLength: 1000 })),
  banExpiresIn: Type.Optional(Type.Number()),
})
const UserIdBody = Type.Object({ userId: UserId })

export interface AdminRouteOptions {
  readonly users: UserStore
  readonly verifier: Verifier
  readonly cookies: SessionCookies
}

// better-auth's refusal of each admin action to a caller without the admin role.
const NOT_ALLOWED = {
  create: 'YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS',
  list: 'YOU_ARE_NOT_ALLOWED_TO_LIST_USERS',
  setRole: 'YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE',
  ban: 'YOU_ARE_NOT_ALLOWED_TO_BAN_USERS',
  delete: 'YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS',
  revoke: 'YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS',
} as const

export async function adminRoutes (app: FastifyInstance, options: AdminRouteOptions): Promise<void> {
  const { users, verifier, cookies } = options

  // The caller is judged before the body is parsed: a caller who may not act learns nothing of
  // what a body must hold (which fields, which limits) from the refusal.
  const adminOnly = (action: keyof typeof NOT_ALLOWED) => async (request: FastifyRequest): Promise<void> => {
    const caller = await adminRouteCaller(request, verifier, cookies)
    if (!caller.roles.includes(ADMIN_ROLE)) {
      throw authProblem('access-denied', NOT_ALLOWED[action], `Only an admin may do this (${NOT_ALLOWED[action].toLowerCase().replace(/_/g, ' ')}).`)
    }
  }
  const callerOf = (request: FastifyRequest): CallerUser => request.ctx.user!
  const by = (request: FastifyRequest) => ({ by: request.ctx })
  // A change is applied by this process's verifier at once, not at its next poll.
  const storeChange = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work()
    } catch (err) {
      if (err instanceof UserStoreError) throw userStoreProblem(err)
      throw err
    } finally {
      // The poll reads it later if this read fails: the change itself has been made.
      await verifier.refreshRevocations().catch(() => {})
    }
  }

  app.post('/create-user', { config: { public: true }, onRequest: adminOnly('create'), schema: { body: CreateUserBody } }, async (request) => {
    const body = request.body as typeof CreateUserBody.static
    const user = await storeChange(async () => await users.create({ email: body.email, password: body.password, name: body.name, role: body.role }, by(request)))
    return { user: authUser(user) }
  })

  app.get('/list-users', { config: { public: true }, onRequest: adminOnly('list') }, async (request) => {
    try {
      const page = await listUserPage(users.pool, users.tables, request.query as Record<string, string | string[] | undefined>)
      return { users: page.users.map(authUser), total: page.total, limit: page.limit, offset: page.offset }
    } catch (err) {
      if (!(err instanceof UserListError)) throw err
      throw authProblem('invalid-parameter', 'VALIDATION_ERROR', err.message, { errors: [{ parameter: err.parameter, message: err.message }] })
    }
  })

  app.post('/set-role', { config: { public: true }, onRequest: adminOnly('setRole'), schema: { body: SetRoleBody } }, async (request) => {
    const body = request.body as typeof SetRoleBody.static
    return { user: authUser(await storeChange(async () => await users.setRole({ id: body.userId }, body.role, by(request)))) }
  })

  app.post('/ban-user', { config: { public: true }, onRequest: adminOnly('ban'), schema: { body: BanUserBody } }, async (request) => {
    const body = request.body as typeof BanUserBody.static
    if (body.banExpiresIn !== undefined) {
      throw authProblem('invalid-record', 'VALIDATION_ERROR', 'Bans do not expire here: leave out banExpiresIn and unban the user when the time comes.', {
        errors: [{ field: 'banExpiresIn', code: 'not-supported', message: 'bans last until the user is unbanned' }],
      })
    }
    if (body.userId === callerOf(request).id) throw authProblem('invalid-record', 'YOU_CANNOT_BAN_YOURSELF', 'You cannot ban yourself.')
    return { user: authUser(await storeChange(async () => await users.setBanned({ id: body.userId }, true, { ...by(request), reason: body.banReason ?? 'No reason' }))) }
  })

  app.post('/unban-user', { config: { public: true }, onRequest: adminOnly('ban'), schema: { body: UserIdBody } }, async (request) => {
    const body = request.body as typeof UserIdBody.static
    return { user: authUser(await storeChange(async () => await users.setBanned({ id: body.userId }, false, by(request)))) }
  })

  app.post('/remove-user', { config: { public: true }, onRequest: adminOnly('delete'), schema: { body: UserIdBody } }, async (request) => {
    const body = request.body as typeof UserIdBody.static
    if (body.userId === callerOf(request).id) throw authProblem('invalid-record', 'YOU_CANNOT_REMOVE_YOURSELF', 'You cannot remove yourself.')
    await storeChange(async () => { await users.delete({ id: body.userId }, by(request)) })
    return { success: true }
  })

  app.post('/revoke-user-sessions', { config: { public: true }, onRequest: adminOnly('revoke'), schema: { body: UserIdBody } }, async (request) => {
    const body = request.body as typeof UserIdBody.static
    await storeChange(async () => await users.revokeSessions({ id: body.userId }, by(request)))
    return { success: true }
  })
}
