// Request limits (config `rateLimits`, docs/rate-limits.md): after authentication and access (or
// after a route scope's own caller check, the docs'), before the body is read, each request counts
// against its caller's budget for its class (read, write, export, aggregate), or its client
// address's without a token, in the database that every process shares, through
// @fastify/rate-limit with the shared store; a request the process's lease answers is counted in
// the store directly (docs/decisions.md "Request limits"). Every counted answer carries the IETF
// `RateLimit-Policy` and `RateLimit` fields; past the budget, 429 before the route runs. Exempt
// roles are not counted, and logged. The rules are in lib/limits/request-limits.ts.
import fp from 'fastify-plugin'
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import { normalizeIP } from '@fastify/rate-limit'
import { runtimeOf } from '../../lib/runtime.js'
import { sharedLimiterStore } from '../../lib/limits/shared-store.js'
import { Callers, ExemptLog, type CallerLimits, REQUEST_COUNTERS, limitKey, overBudget, policyField, rateLimitField, requestClass, requestCountersExist, requestLease } from '../../lib/limits/request-limits.js'
import { LIMIT_CLASSES, type Budget, type LimitClass } from '../../lib/config/rate-limits.js'

type Limiter = ReturnType<FastifyInstance['createRateLimit']>

interface Limit {
  readonly limitClass: LimitClass
  readonly limiter: Limiter
  readonly budget: Budget
  readonly policy: string
}

/** The fields of a counted answer, or past the budget the 429 (with them and Retry-After). */
function answer (reply: FastifyReply, limit: Limit, remaining: number, resetSeconds: number, exceeded: boolean): Error | undefined {
  const field = rateLimitField(limit.limitClass, remaining, resetSeconds)
  if (exceeded) return overBudget(limit.limitClass, limit.budget, resetSeconds, { 'ratelimit-policy': limit.policy, ratelimit: field })
  void reply.header('ratelimit-policy', limit.policy).header('ratelimit', field)
  return undefined
}

async function rateLimits (app: FastifyInstance): Promise<void> {
  const { config, db } = runtimeOf(app)
  const settings = config.rateLimits
  if (settings === undefined) return
  if (!await requestCountersExist(db.app)) {
    throw new Error('config.rateLimits: the request counters\' table tablegate_limits.requests is missing: run `tablegate migrate` (or start with migrateOnStart)')
  }
  const callers = new Callers(new Set(settings.exempt))
  /** The request's key: its caller's, or its client address's (request.ip walks x-forwarded-for under trustProxy). */
  const keyOf = (request: FastifyRequest, limitClass: LimitClass, caller?: CallerLimits): string => {
    const { user } = request.ctx
    return user === null ? limitKey(limitClass, null, undefined, normalizeIP(request.ip)) : (caller ?? callers.of(user, request.ctx.org)).key(limitClass)
  }
  const store = sharedLimiterStore(db.app, REQUEST_COUNTERS, { lease: requestLease })
  const limiters = new Map<LimitClass, Limit>()
  // The limiter's own scope: its decorators stay there, and the login routes' limiter is another.
  await app.register(async (scope) => {
    await scope.register(rateLimit, { global: false, store })
    for (const limitClass of LIMIT_CLASSES) {
      const budget = settings.budgets[limitClass]
      if (budget === undefined) continue
      const limiter = scope.createRateLimit({ max: budget.max, timeWindow: budget.windowMs, keyGenerator: (request: FastifyRequest) => keyOf(request, limitClass) })
      limiters.set(limitClass, { limitClass, limiter, budget, policy: policyField(limitClass, budget) })
    }
  })
  /** Answers from the process's lease, if it has the count: no database, no promise. */
  const fromLease = (reply: FastifyReply, limit: Limit, key: string, done: (err?: Error) => void): boolean => {
    const { max } = limit.budget
    const held = store.held(key, max)
    if (held === undefined) return false
    done(answer(reply, limit, Math.max(0, max - held.current), Math.ceil(held.ttl / 1000), held.current > max))
    return true
  }
  /** Counts through the limiter: a lease is to be taken first. */
  const count = (request: FastifyRequest, reply: FastifyReply, limit: Limit, done: (err?: Error) => void): void => {
    limit.limiter(request).then((counted) => {
      // Allowed: on the limiter's allow list, which these limiters have none of.
      done(counted.isAllowed ? undefined : answer(reply, limit, counted.remaining, counted.ttlInSeconds, counted.isExceeded))
    }, done)
  }
  const exemptLog = new ExemptLog()
  /** Counts a request of a route that request limits count. */
  const countRequest = (request: FastifyRequest, reply: FastifyReply, routeConfig: FastifyContextConfig, done: (err?: Error) => void): void => {
    const { user } = request.ctx
    // Without a caller past authentication, only the public routes: an unknown path under the
    // login routes is theirs to answer.
    if (user === null && request.is404) {
      done()
      return
    }
    const limitClass: LimitClass = user === null ? 'anonymous' : requestClass(routeConfig.operationClass, request.method, request.url)
    const limit = limiters.get(limitClass)
    if (limit === undefined) {
      done()
      return
    }
    const caller = user === null ? undefined : callers.of(user, request.ctx.org)
    if (caller !== undefined && caller.exemptRoles.length > 0) {
      const requests = exemptLog.note(user!.id)
      if (requests !== undefined) request.log.info({ user: user!.id, roles: caller.exemptRoles, requests }, 'request limits: exempt caller (requests since the last line)')
      done()
      return
    }
    const key = keyOf(request, limitClass, caller)
    if (fromLease(reply, limit, key, done)) return
    // While the key's lease is taken, the requests that come wait for it and are answered from it;
    // through the limiter, each would wait in the store as well, at the price of its promises.
    const taking = store.taking(key)
    if (taking === undefined) {
      count(request, reply, limit, done)
      return
    }
    taking.then(() => { if (!fromLease(reply, limit, key, done)) count(request, reply, limit, done) }, done)
  }
  // After the root's hooks that make the caller known (the token's, then access's), in the same
  // run of onRequest hooks, before the body is read. A callback hook: most requests are answered
  // by the process's lease at once, and then no promise is made for them. Not the routes that
  // request limits leave alone, nor those whose scope checks their callers itself (the docs'):
  // those count in a hook of their own, after every hook of their scope.
  app.addHook('onRequest', (request, reply, done) => {
    const routeConfig = request.routeOptions.config
    if (routeConfig.requestLimits === undefined) countRequest(request, reply, routeConfig, done)
    else done()
  })
  const afterOwnCallerCheck: onRequestHookHandler = (request, reply, done) => { countRequest(request, reply, request.routeOptions.config, done) }
  app.addHook('onRoute', (route) => {
    if (route.config?.requestLimits !== 'after-own-caller-check') return
    route.onRequest = [...[route.onRequest ?? []].flat(), afterOwnCallerCheck]
  })
}

export default fp(rateLimits, { name: 'tablegate-rate-limits', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
