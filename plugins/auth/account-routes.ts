// better-auth 1.7's routes for accounts people manage themselves (docs/login.md, "Accounts people
// manage themselves"): sign-up, email verification and password reset before signing in, and a
// signed-in user's own password, email, profile, sessions and account. Sign-up and the requests
// for links are limited per client and per email address in the sign-in limiter's store.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { createHash } from 'node:crypto'
import { authProblem } from '../../lib/auth/login.js'
import { authUser } from '../../lib/auth/shapes.js'
import { rolesOf } from '../../lib/config/roles.js'
import { isSafeCallbackURL } from '../../lib/auth/origins.js'
import { attemptCounter } from '../../lib/limits/shared-store.js'
import { pastTheRevokingSecond } from '../../lib/auth/revocations.js'
import { emailOf, requestPasswordReset, resetPassword, sendOwnVerification, sendVerificationTo, signUp, verifyEmail, type AccountServices } from '../../lib/auth/accounts.js'
import { changeEmail, changePassword, deleteOwnAccount, listSessions, revokeOtherSessions, revokeSession, updateUser, type Own } from '../../lib/auth/own-account.js'
import { isProblem } from '../../lib/problems.js'
import { isLiveOneTimeToken } from '../../lib/auth/one-time-tokens.js'
import type { UserStore } from '../../lib/auth/users.js'
import type { Verifier } from '../../lib/auth/verifier.js'
import type { ResolvedConfig } from '../../lib/config/resolve.js'
import type { SessionCookies } from './callers.js'

const Email = Type.String({ maxLength: 320 })
const Password = Type.String({ maxLength: 1024 })
const CallbackURL = Type.Optional(Type.String({ maxLength: 2048 }))

const SignUpBody = Type.Object({
  name: Type.String({ maxLength: 200 }),
  email: Email,
  password: Password,
  image: Type.Optional(Type.String({ maxLength: 2048 })),
  callbackURL: CallbackURL,
  rememberMe: Type.Optional(Type.Boolean()),
})
const EmailBody = Type.Object({ email: Email, callbackURL: CallbackURL })
const ResetRequestBody = Type.Object({ email: Email, redirectTo: CallbackURL })
const ResetBody = Type.Object({ newPassword: Password, token: Type.Optional(Type.String({ maxLength: 200 })) })
const TokenQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) })
const VerifyQuery = Type.Object({ token: Type.String({ maxLength: 200 }), callbackURL: CallbackURL })
const ResetLinkQuery = Type.Object({ callbackURL: CallbackURL })
const ChangePasswordBody = Type.Object({ newPassword: Password, currentPassword: Password, revokeOtherSessions: Type.Optional(Type.Boolean()) })
const ChangeEmailBody = Type.Object({ newEmail: Email, callbackURL: CallbackURL })
const UpdateUserBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  image: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
  email: Type.Optional(Type.String({ maxLength: 320 })),
})
const RevokeSessionBody = Type.Object({ token: Type.String({ maxLength: 200 }) })
const DeleteUserBody = Type.Object({ password: Type.Optional(Password), callbackURL: CallbackURL, token: Type.Optional(Type.String({ maxLength: 200 })) })

/** Requests per client (`request.ip`) a minute, and per email address an hour, are each `signInPerMinute`. */
const CLIENT_WINDOW_MS = 60_000
const ADDRESS_WINDOW_MS = 3_600_000

export interface AccountRouteOptions {
  readonly users: UserStore
  readonly verifier: Verifier
  readonly config: ResolvedConfig
  readonly cookies: SessionCookies
}

export async function accountRoutes (app: FastifyInstance, options: AccountRouteOptions): Promise<void> {
  const { users, config, cookies } = options
  const settings = config.accounts
  const base = `${config.publicUrl}${config.apiRoot}/auth`
  const services: AccountServices = {
    store: users,
    settings,
    roles: config.roles,
    links: {
      verifyEmail: (token, callbackURL) => `${base}/verify-email?token=${token}&callbackURL=${encodeURIComponent(callbackURL ?? '/')}`,
      resetPassword: (token, callbackURL) => `${base}/reset-password/${token}?callbackURL=${encodeURIComponent(callbackURL ?? '/')}`,
    },
    onHookError: (err, hook) => { app.log.error({ err, hook }, `${hook} threw: the mail was not handed over`) },
  }
  const counter = attemptCounter(users.pool, users.tables.rateLimit)
  const max = config.signInPerMinute

  // Both counts are taken whatever the first says, so a refused client still spends its address's
  // budget. The address is counted by its hash: the counters hold no email.
  const limit = async (kind: string, request: FastifyRequest, email: string): Promise<void> => {
    const counts = await Promise.all([
      counter.count(`${kind}|client|${request.ip}`, CLIENT_WINDOW_MS),
      counter.count(`${kind}|email|${createHash('sha256').update(email).digest('base64url')}`, ADDRESS_WINDOW_MS),
    ])
    const over = counts.filter((c) => c.current > max)
    if (over.length === 0) return
    const wait = Math.max(...over.map((c) => c.ttl))
    throw authProblem('too-many-requests', 'TOO_MANY_REQUESTS', 'Too many requests. Wait before trying again.', {},
      { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) })
  }
  const safeCallback = (url: string | undefined, field: string): string | undefined => {
    if (url === undefined || url === '') return undefined
    if (!isSafeCallbackURL(url, config.pageOrigins)) {
      throw authProblem('access-denied', 'INVALID_CALLBACK_URL', `${field} must be a path on this server or a URL of a trusted origin.`)
    }
    return url
  }
  const own = async (request: FastifyRequest): Promise<Own> => {
    const found = await cookies.session(request)
    if (found === undefined) throw authProblem('unauthenticated', 'UNAUTHORIZED', 'Sign in first: no valid session cookie was sent.')
    request.ctx.user = { id: found.user.id, roles: rolesOf(found.user.role) }
    return { ...found, by: request.ctx }
  }
  // This process applies the change at once, not at its next poll; a token minted after the answer counts as newer.
  const tokensEnded = async (): Promise<void> => {
    await options.verifier.refreshRevocations().catch(() => {})
    await pastTheRevokingSecond()
  }
  // A page a link lands on must not pass its token on in a Referer.
  const noStore = (reply: FastifyReply): void => { reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer') }
  const emptyBody = async (request: FastifyRequest): Promise<void> => { request.body ??= {} }

  // Routes of a flow that is off are not there: a 404, as any unknown path here.
  if (settings.signUp !== false) {
    app.post('/sign-up/email', { config: { public: true }, schema: { body: SignUpBody } }, async (request) => {
      const body = request.body as typeof SignUpBody.static
      const callbackURL = safeCallback(body.callbackURL, 'callbackURL')
      await limit('sign-up', request, emailOf(body.email))
      return await signUp(services, { ...body, callbackURL }, request.ctx)
    })
  }

  if (settings.emailVerification !== undefined) {
    app.post('/send-verification-email', { config: { public: true }, schema: { body: EmailBody } }, async (request) => {
      const body = request.body as typeof EmailBody.static
      const callbackURL = safeCallback(body.callbackURL, 'callbackURL')
      const email = emailOf(body.email)
      await limit('verification', request, email)
      const found = await cookies.session(request)
      await (found === undefined ? sendVerificationTo(services, email, callbackURL) : sendOwnVerification(services, found.user, email, callbackURL))
      return { status: true }
    })

    // A link followed in a browser: with callbackURL, the answer is a redirect there (`?error=CODE` on a refusal).
    app.get('/verify-email', { config: { public: true }, schema: { querystring: VerifyQuery } }, async (request, reply) => {
      const query = request.query as typeof VerifyQuery.static
      const callbackURL = safeCallback(query.callbackURL, 'callbackURL')
      noStore(reply)
      try {
        await verifyEmail(services, query.token, request.ctx)
      } catch (err) {
        if (callbackURL === undefined || !isProblem(err)) throw err
        return await reply.redirect(withQuery(callbackURL, 'error', String(err.extras.code)), 302)
      }
      if (callbackURL !== undefined) return await reply.redirect(callbackURL, 302)
      return { status: true, user: null }
    })
  }

  if (settings.passwordReset !== undefined) {
    app.post('/request-password-reset', { config: { public: true }, schema: { body: ResetRequestBody } }, async (request, reply) => {
      const body = request.body as typeof ResetRequestBody.static
      const callbackURL = safeCallback(body.redirectTo, 'redirectTo')
      const email = emailOf(body.email)
      await limit('reset', request, email)
      noStore(reply)
      return await requestPasswordReset(services, email, callbackURL)
    })

    // The mail's link: to the app's page with `?token=`, or `?error=INVALID_TOKEN` when it cannot be used.
    app.get('/reset-password/:token', { config: { public: true }, schema: { querystring: ResetLinkQuery } }, async (request, reply) => {
      const { token } = request.params as { token: string }
      const callbackURL = safeCallback((request.query as typeof ResetLinkQuery.static).callbackURL, 'callbackURL') ?? '/'
      const live = await isLiveOneTimeToken(users.pool, users.tables, 'reset-password', token)
      noStore(reply)
      return await reply.redirect(!live ? withQuery(callbackURL, 'error', 'INVALID_TOKEN') : withQuery(callbackURL, 'token', token), 302)
    })

    app.post('/reset-password', { config: { public: true }, schema: { body: ResetBody, querystring: TokenQuery } }, async (request) => {
      const body = request.body as typeof ResetBody.static
      const token = body.token ?? (request.query as typeof TokenQuery.static).token
      if (token === undefined || token === '') throw authProblem('invalid-record', 'INVALID_TOKEN', 'Invalid token')
      await resetPassword(services, token, body.newPassword, request.ctx)
      await tokensEnded()
      return { status: true }
    })
  }

  app.post('/change-password', { config: { public: true }, schema: { body: ChangePasswordBody } }, async (request, reply) => {
    const caller = await own(request)
    const body = request.body as typeof ChangePasswordBody.static
    const user = await changePassword(services, caller, body.currentPassword, body.newPassword, body.revokeOtherSessions === true)
    if (body.revokeOtherSessions === true) await tokensEnded()
    noStore(reply)
    return { token: null, user: authUser(user) }
  })

  app.post('/change-email', { config: { public: true }, schema: { body: ChangeEmailBody } }, async (request) => {
    const caller = await own(request)
    const body = request.body as typeof ChangeEmailBody.static
    await changeEmail(services, caller, body.newEmail, safeCallback(body.callbackURL, 'callbackURL'))
    return { status: true }
  })

  app.post('/update-user', { config: { public: true }, schema: { body: UpdateUserBody } }, async (request) => {
    const caller = await own(request)
    await updateUser(services, caller, request.body as typeof UpdateUserBody.static)
    return { status: true }
  })

  app.get('/list-sessions', { config: { public: true } }, async (request, reply) => {
    const caller = await own(request)
    noStore(reply)
    return await listSessions(services, caller, config.organizations !== undefined)
  })

  app.post('/revoke-session', { config: { public: true }, schema: { body: RevokeSessionBody } }, async (request, reply) => {
    const caller = await own(request)
    if (await revokeSession(services, caller, (request.body as typeof RevokeSessionBody.static).token)) cookies.clear(reply)
    return { status: true }
  })

  app.post('/revoke-other-sessions', { config: { public: true }, preValidation: emptyBody }, async (request) => {
    const caller = await own(request)
    await revokeOtherSessions(services, caller)
    await tokensEnded()
    return { status: true }
  })

  app.post('/delete-user', { config: { public: true }, preValidation: emptyBody, schema: { body: DeleteUserBody } }, async (request, reply) => {
    const caller = await own(request)
    await deleteOwnAccount(services, caller, (request.body as typeof DeleteUserBody.static).password)
    await options.verifier.refreshRevocations().catch(() => {})
    cookies.clear(reply)
    return { success: true, message: 'User deleted' }
  })
}

function withQuery (url: string, key: string, value: string): string {
  const parsed = new URL(url, 'http://relative.invalid')
  parsed.searchParams.set(key, value)
  return url.startsWith('/') ? `${parsed.pathname}${parsed.search}${parsed.hash}` : parsed.href
}
