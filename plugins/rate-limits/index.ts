// Request limits (config `rateLimits`, docs/rate-limits.md): after authentication and access (and
// after a route scope's own caller check, the docs'), before the body is read, each request counts
// against its caller's budget for its class (read, write, export, aggregate), or its client
// address's without a token, in the database that every process shares, through
// @fastify/rate-limit with the shared store. Every counted answer carries the IETF
// `RateLimit-Policy` and `RateLimit` fields; past the budget, 429 before the route runs. Exempt
// roles are not counted, and logged. The rules are in lib/limits/request-limits.ts.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import { normalizeIP } from '@fastify/rate-limit'
import { runtimeOf } from '../../lib/runtime.js'
import { sharedLimiterStore } from '../../lib/limits/shared-store.js'
import { ExemptLog, REQUEST_COUNTERS, limitKey, overBudget, policyField, rateLimitField, requestClass, requestCountersExist, requestLease } from '../../lib/limits/request-limits.js'
import { LIMIT_CLASSES, type Budget, type LimitClass } from '../../lib/config/rate-limits.js'

type Limiter = ReturnType<FastifyInstance['createRateLimit']>

async function rateLimits (app: FastifyInstance): Promise<void> {
  const { config, db } = runtimeOf(app)
  const settings = config.rateLimits
  if (settings === undefined) return
  if (!await requestCountersExist(db.app)) {
    throw new Error('config.rateLimits: the request counters\' table tablegate_limits.requests is missing: run `tablegate migrate` (or start with migrateOnStart)')
  }
  const limiters = new Map<LimitClass, { readonly limiter: Limiter, readonly budget: Budget, readonly policy: string }>()
  // The limiter's own scope: its decorators stay there, and the login routes' limiter is another.
  await app.register(async (scope) => {
    await scope.register(rateLimit, { global: false, store: sharedLimiterStore(db.app, REQUEST_COUNTERS, { lease: requestLease }) })
    for (const limitClass of LIMIT_CLASSES) {
      const budget = settings.budgets[limitClass]
      if (budget === undefined) continue
      const limiter = scope.createRateLimit({
        max: budget.max,
        timeWindow: budget.windowMs,
        // The address only without a caller: request.ip walks x-forwarded-for under trustProxy.
        keyGenerator: (request: FastifyRequest) => limitKey(limitClass, request.ctx.user, request.ctx.org, request.ctx.user === null ? normalizeIP(request.ip) : ''),
      })
      limiters.set(limitClass, { limiter, budget, policy: policyField(limitClass, budget) })
    }
  })
  const exempt = new Set(settings.exempt)
  const exemptLog = new ExemptLog()
  // preParsing: every onRequest hook has run, the docs' own caller check among them, and no body has been read.
  app.addHook('preParsing', async (request, reply) => {
    const routeConfig = request.routeOptions.config
    if (routeConfig.requestLimits === false) return
    const { user } = request.ctx
    // Without a caller past authentication, only the public routes: an unknown path under the
    // login routes is theirs to answer.
    if (user === null && request.is404) return
    const limitClass: LimitClass = user === null ? 'anonymous' : requestClass(routeConfig.operationClass, request.method, request.url)
    const limit = limiters.get(limitClass)
    if (limit === undefined) return
    const exemptRoles = user?.roles.filter((role) => exempt.has(role)) ?? []
    if (exemptRoles.length > 0) {
      const requests = exemptLog.note(user!.id)
      if (requests !== undefined) request.log.info({ user: user!.id, roles: exemptRoles, requests }, 'request limits: exempt caller (requests since the last line)')
      return
    }
    const counted = await limit.limiter(request)
    if (counted.isAllowed) return
    const headers = {
      'ratelimit-policy': limit.policy,
      ratelimit: rateLimitField(limitClass, counted.remaining, counted.ttlInSeconds),
    }
    if (counted.isExceeded) throw overBudget(limitClass, limit.budget, counted.ttlInSeconds, headers)
    reply.headers(headers)
  })
}

export default fp(rateLimits, { name: 'tablegate-rate-limits', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
