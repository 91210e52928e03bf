// The login routes under /api/auth, with better-auth 1.7 request and response shapes.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { UserStore } from '../../lib/auth/users.js'
import { UserStoreError } from '../../lib/auth/users.js'
import { authProblem, signInWithEmail, userStoreProblem } from '../../lib/auth/login.js'
import { authUser } from '../../lib/auth/shapes.js'
import { sessionUser, SESSION_TTL_SECONDS } from '../../lib/auth/sessions.js'
import { issueAccessToken } from '../../lib/auth/tokens.js'
import { isTrustedOrigin, originOf } from '../../lib/auth/origins.js'
import { ADMIN_ROLE, rolesOf } from '../../lib/config/roles.js'
import type { Principal, Verifier } from '../../lib/auth/verifier.js'
import type { ResolvedConfig } from '../../lib/config/resolve.js'
import { problem } from '../../lib/problems.js'
import { sessionCookieName } from '../../lib/auth/session-cookie.js'

const SignInBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
  rememberMe: Type.Optional(Type.Boolean()),
  callbackURL: Type.Optional(Type.String()),
})

const CreateUserBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  role: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  data: Type.Optional(Type.Object({})),
})

// The last x-forwarded-for entry is the one the nearest proxy wrote: behind a proxy that appends
// (nginx's $proxy_add_x_forwarded_for) the first entries are whatever the client sent.
function clientIp (request: FastifyRequest): string {
  const forwarded = request.headers['x-forwarded-for']
  const last = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)?.split(',').at(-1)?.trim()
  return last !== undefined && last !== '' ? last : request.ip
}

export interface LoginRouteOptions {
  readonly users: UserStore
  readonly verifier: Verifier
  readonly config: ResolvedConfig
}

export async function loginRoutes (app: FastifyInstance, options: LoginRouteOptions): Promise<void> {
  const { users, config, verifier } = options
  const secure = config.publicUrl.startsWith('https:')
  const cookieName = sessionCookieName(config.publicUrl)

  const sessionOf = async (request: FastifyRequest) => {
    const raw = request.cookies[cookieName]
    if (raw === undefined) return undefined
    const unsigned = request.unsignCookie(raw)
    return unsigned.valid && unsigned.value !== null ? await sessionUser(users.pool, users.tables, unsigned.value) : undefined
  }

  // Cookie-authenticated POSTs come only from trusted origins; a browser always sends Origin on a
  // cross-site POST, so a foreign Origin — or a cookie without any Origin — is refused.
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'POST') return
    const origin = request.headers.origin ?? (request.headers.referer === undefined ? undefined : originOf(request.headers.referer))
    if (origin === undefined && request.headers.cookie === undefined) return
    if (origin === undefined || !isTrustedOrigin(origin, config.trustedOrigins)) {
      throw authProblem('access-denied', 'INVALID_ORIGIN', 'This origin is not trusted to send authenticated requests.')
    }
  })

  app.post('/sign-in/email', {
    config: {
      public: true,
      rateLimit: {
        max: config.signInPerMinute,
        timeWindow: 60_000,
        keyGenerator: clientIp,
        errorResponseBuilder: (_request, context) => problem('too-many-requests', 'Too many sign-in attempts. Wait before trying again.',
          { code: 'TOO_MANY_REQUESTS', message: 'Too many sign-in attempts.' }, { 'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))) }),
      },
    },
    schema: { body: SignInBody },
  }, async (request, reply) => {
    const body = request.body as typeof SignInBody.static
    const signedIn = await signInWithEmail(users, body.email, body.password, { ipAddress: clientIp(request), userAgent: request.headers['user-agent'] })
    // rememberMe: false (better-auth) makes it a browser-session cookie; the session itself still expires.
    reply.setCookie(cookieName, signedIn.sessionToken, {
      signed: true, httpOnly: true, sameSite: 'lax', secure, path: '/', ...(body.rememberMe === false ? {} : { maxAge: SESSION_TTL_SECONDS }),
    })
    // The session token stays in the HttpOnly cookie only: no script can read it from the body.
    return { redirect: false, token: null, url: null, user: authUser(signedIn.user) }
  })

  app.get('/token', { config: { public: true } }, async (request) => {
    const user = await sessionOf(request)
    if (user === undefined) throw authProblem('unauthenticated', 'UNAUTHORIZED', 'Sign in first: no valid session cookie was sent.')
    const { token } = await issueAccessToken(await users.keys.current(), user, config.publicUrl)
    return { token }
  })

  app.get('/jwks', { config: { public: true } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300')
    return { keys: await users.keys.publicJwks() }
  })

  app.get('/status', { config: { public: true } }, async () => ({ needsAdmin: !(await users.hasUsers()) }))

  app.post('/admin/create-user', { config: { public: true }, schema: { body: CreateUserBody } }, async (request) => {
    const roles = await callerRoles(request)
    if (!roles.includes(ADMIN_ROLE)) throw authProblem('access-denied', 'FORBIDDEN', 'Only an admin can create users.')
    const body = request.body as typeof CreateUserBody.static
    try {
      const user = await users.create({ email: body.email, password: body.password, name: body.name, role: body.role })
      return { user: authUser(user) }
    } catch (err) {
      if (err instanceof UserStoreError) throw userStoreProblem(err)
      throw err
    }
  })

  // An admin's bearer token or an admin's session cookie (DESIGN 5.8).
  async function callerRoles (request: FastifyRequest): Promise<readonly string[]> {
    if (request.headers.authorization !== undefined) {
      const principal: Principal = await verifier.authenticate(request.headers.authorization)
      return principal.user.roles
    }
    const user = await sessionOf(request)
    if (user === undefined) throw authProblem('unauthenticated', 'UNAUTHORIZED', 'Sign in as an admin, or send an admin bearer token.')
    return rolesOf(user.role)
  }
}
