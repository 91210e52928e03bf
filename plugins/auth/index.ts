// Authentication: every route not marked `config.public` needs a verified bearer token — unknown
// paths included (except under the login routes, all public), so nothing about the route table
// is shown to an anonymous caller.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import cookie from '@fastify/cookie'
import rateLimit from '@fastify/rate-limit'
import { cookieSecret } from '../../lib/auth/session-cookie.js'
import { runtimeOf } from '../../lib/runtime.js'
import { isProblem, problemHeaders, toProblemBody } from '../../lib/problems.js'
import { loginRoutes } from './routes.js'
import { signInForm } from './sign-in-form.js'
import { sharedLimiterStore } from '../../lib/limits/shared-store.js'

async function auth (app: FastifyInstance): Promise<void> {
  const { verifier, users, db, config, organizationStore } = runtimeOf(app)
  const loginPrefix = `${config.apiRoot}/auth`
  // The login routes answer an unknown path themselves (404): that a path is not there is no secret.
  const isLoginPath = (url: string): boolean => url === loginPrefix || url.startsWith(`${loginPrefix}/`) || url.startsWith(`${loginPrefix}?`)
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.public === true) return
    if (users !== undefined && request.is404 && isLoginPath(request.url)) return
    request.ctx.timing?.mark()
    let principal
    try {
      principal = await verifier.authenticate(request.headers.authorization)
    } catch (err) {
      // Answered here, as a problem: a route the app registered before tablegate keeps Fastify's
      // own error handler, which would answer plain JSON.
      if (!isProblem(err)) throw err
      request.log.debug({ detail: err.detail }, 'request not authenticated')
      void reply.code(err.status).headers(problemHeaders(err)).send(toProblemBody(err, request.url))
      return reply
    }
    request.ctx.timing?.lap('auth')
    request.ctx.user = principal.user
    request.ctx.tenant = principal.tenant
    request.ctx.org = principal.org
  })
  if (users === undefined) return
  // Cookies and the limiter live inside the login routes' own scope: no other response pays for them.
  await app.register(async (login) => {
    // Sign-in has its own limiter; the other login routes are no request limit's (docs/rate-limits.md).
    login.addHook('onRoute', (route) => { route.config = { ...route.config, requestLimits: false } })
    await login.register(cookie, { secret: cookieSecret(db.authSecret) })
    await login.register(rateLimit, { global: false, store: sharedLimiterStore(users.pool, users.tables.rateLimit) })
    await login.register(loginRoutes, { users, verifier, config, organizations: organizationStore })
    await login.register(signInForm, { apiRoot: config.apiRoot })
  }, { prefix: loginPrefix })
}

export default fp(auth, { name: 'tablegate-auth', fastify: '5.x', dependencies: ['tablegate'] })
