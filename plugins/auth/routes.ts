// The login routes under /api/auth, with better-auth 1.7 request and response shapes: sign-in,
// the session, sign-out, tokens and keys. The admin plugin's routes are in admin-routes.ts.
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { UserStore } from '../../lib/auth/users.js'
import { authProblem, refuseUnverified, signInWithEmail, withAuthCode } from '../../lib/auth/login.js'
import { mapError } from '../../lib/http/error-mapping.js'
import { authSession, authUser } from '../../lib/auth/shapes.js'
import { endSession } from '../../lib/auth/sessions.js'
import { issueAccessToken } from '../../lib/auth/tokens.js'
import { activeOrganization } from '../../lib/auth/active-organization.js'
import { isSafeCallbackURL, isTrustedOrigin, originOf } from '../../lib/auth/origins.js'
import type { ResolvedConfig } from '../../lib/config/resolve.js'
import type { Verifier } from '../../lib/auth/verifier.js'
import { NO_ROUTE_DETAIL } from '../../lib/problems.js'
import { sessionCookies } from './callers.js'
import { adminRoutes } from './admin-routes.js'
import { accountRoutes } from './account-routes.js'
import { organizationRoutes } from './organization-routes.js'
import type { OrganizationCore } from '../../lib/auth/organization-core.js'

const SignInBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
  rememberMe: Type.Optional(Type.Boolean()),
  callbackURL: Type.Optional(Type.String({ maxLength: 2048 })),
})

const SignOutBody = Type.Optional(Type.Object({
  callbackURL: Type.Optional(Type.String()),
  disableRedirect: Type.Optional(Type.Boolean()),
  state: Type.Optional(Type.String()),
}))

export interface LoginRouteOptions {
  readonly users: UserStore
  readonly verifier: Verifier
  readonly config: ResolvedConfig
  /** The organization store; without it (organizations off) /organization/* is a 404 like any unknown path. */
  readonly organizations: OrganizationCore | undefined
}

export async function loginRoutes (app: FastifyInstance, options: LoginRouteOptions): Promise<void> {
  const { users, config } = options
  const cookies = sessionCookies(users, config.publicUrl)
  const verificationRequired = config.accounts.emailVerification?.required === true

  // Cookie-authenticated POSTs come only from trusted origins; a browser always sends Origin on a
  // cross-site POST, so a foreign Origin — or a cookie without any Origin — is refused.
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'POST') return
    const origin = request.headers.origin ?? (request.headers.referer === undefined ? undefined : originOf(request.headers.referer))
    if (origin === undefined && request.headers.cookie === undefined) return
    if (origin === undefined) throw authProblem('access-denied', 'MISSING_OR_NULL_ORIGIN', 'A request that carries a cookie must say its Origin.')
    if (origin === 'null') throw authProblem('access-denied', 'MISSING_OR_NULL_ORIGIN', 'A request from an opaque origin (Origin: null) is not trusted to sign in or change anything.')
    if (!isTrustedOrigin(origin, config.trustedOrigins)) {
      throw authProblem('access-denied', 'INVALID_ORIGIN', 'This origin is not trusted to send authenticated requests.')
    }
  })

  // Any other path here is a 404 for everyone: no token is needed to learn that nothing is there.
  app.setNotFoundHandler({}, async () => { throw authProblem('not-found', 'NOT_FOUND', NO_ROUTE_DETAIL) })
  // Refusals made here by the body's schema, the parser or the verifier get better-auth's code and
  // message too; the app's handler answers them, and takes an unexpected error as it was thrown.
  app.setErrorHandler(async (error) => {
    const mapped = mapError(error)
    throw mapped.unexpected ? error : withAuthCode(mapped.problem)
  })

  app.post('/sign-in/email', {
    config: {
      public: true,
      rateLimit: {
        max: config.signInPerMinute,
        timeWindow: 60_000,
        // request.ip: the socket address, or x-forwarded-for as far as `trustProxy` believes it.
        keyGenerator: (request) => request.ip,
        errorResponseBuilder: (_request, context) => authProblem('too-many-requests', 'TOO_MANY_REQUESTS', 'Too many sign-in attempts. Wait before trying again.',
          {}, { 'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))) }),
      },
    },
    schema: { body: SignInBody },
  }, async (request, reply) => {
    const body = request.body as typeof SignInBody.static
    const callbackURL = body.callbackURL === '' ? undefined : body.callbackURL
    if (callbackURL !== undefined && !isSafeCallbackURL(callbackURL, config.pageOrigins)) {
      throw authProblem('access-denied', 'INVALID_CALLBACK_URL', 'callbackURL must be a path on this server or a URL of a trusted origin.')
    }
    const signedIn = await signInWithEmail(users, body.email, body.password, { ipAddress: request.ip, userAgent: request.headers['user-agent'] }, verificationRequired)
    cookies.set(reply, signedIn.sessionToken, body.rememberMe !== false)
    reply.header('cache-control', 'no-store')
    if (callbackURL !== undefined) reply.header('location', callbackURL)
    // The session token stays in the HttpOnly cookie only: no script can read it from the body.
    return { redirect: callbackURL !== undefined, token: null, url: callbackURL ?? null, user: authUser(signedIn.user) }
  })

  app.get('/get-session', { config: { public: true } }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const found = await cookies.session(request)
    if (found === undefined) {
      if (cookies.token(request) !== undefined) cookies.clear(reply)
      return null
    }
    return { session: authSession(found.session, config.organizations !== undefined), user: authUser(found.user) }
  })

  // No body at all (`curl -X POST`) is as good as `{}`: there is nothing to say to sign out.
  app.post('/sign-out', { config: { public: true }, preValidation: async (request) => { request.body ??= {} }, schema: { body: SignOutBody } }, async (request, reply) => {
    const token = cookies.token(request)
    if (token !== undefined) await endSession(users.pool, users.tables, token)
    cookies.clear(reply)
    return { success: true }
  })

  app.get('/token', { config: { public: true } }, async (request, reply) => {
    // A bearer token is a credential: no cache on the way may keep it (RFC 6749, 5.1).
    reply.header('cache-control', 'no-store')
    const found = await cookies.session(request)
    if (found === undefined) throw authProblem('unauthenticated', 'UNAUTHORIZED', 'Sign in first: no valid session cookie was sent.')
    refuseUnverified(found.user, verificationRequired)
    const org = config.organizations === undefined ? undefined : await activeOrganization(users.pool, users.tables, found.session.id)
    // A token's iat is whole seconds: one minted in the second a membership was ended and given
    // back would be taken for an older one until this process's next poll, so it reads them now.
    if (org !== undefined) await options.verifier.refreshRevocations().catch(() => {})
    const { token } = await issueAccessToken(await users.keys.current(), found.user, config.publicUrl, undefined, org)
    return { token }
  })

  app.get('/jwks', { config: { public: true } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300')
    return { keys: await users.keys.publicJwks() }
  })

  app.get('/status', { config: { public: true } }, async () => ({ needsAdmin: !(await users.hasUsers()) }))

  await app.register(accountRoutes, { ...options, cookies })
  await app.register(adminRoutes, { ...options, cookies, prefix: '/admin' })
  if (options.organizations !== undefined) await app.register(organizationRoutes, { store: options.organizations, cookies, refreshRevocations: options.verifier.refreshRevocations, prefix: '/organization' })
}
