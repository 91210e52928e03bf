// Access: after authentication, `request.ctx.access(resource)` resolves the caller's AccessPlan
// for a resource (kept per caller shape by the app's resolver); every route and feature reads it
// from there. A resource the app does not have is the unknown-route 404.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { callerKey } from '../../lib/access/resolve.js'
import { NO_ROUTE_DETAIL, problem } from '../../lib/problems.js'
import { runtimeOf } from '../../lib/runtime.js'

async function access (app: FastifyInstance): Promise<void> {
  const resolver = runtimeOf(app).access
  app.addHook('onRequest', async (request) => {
    const { user, tenant } = request.ctx
    if (user === null) return
    const caller = { user, tenant }
    const key = callerKey(caller)
    request.ctx.access = (resource) => {
      const plan = resolver.plan(caller, key, resource)
      if (plan === undefined) throw problem('not-found', NO_ROUTE_DETAIL)
      return plan
    }
  })
}

export default fp(access, { name: 'tablegate-access', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth'] })
