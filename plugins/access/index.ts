// Access: after authentication, `request.ctx.access(resource)` resolves the caller's AccessPlan
// for a resource (kept per caller shape by the app's resolver); every route and feature reads it
// from there. A resource the app does not have is the unknown-route 404.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { callerAccess } from '../../lib/access/resolve.js'
import { runtimeOf } from '../../lib/runtime.js'

async function access (app: FastifyInstance): Promise<void> {
  const resolver = runtimeOf(app).access
  app.addHook('onRequest', (request, _reply, done) => {
    const { user, tenant, org } = request.ctx
    if (user !== null) {
      const plans = callerAccess(resolver, { user, tenant, org })
      const times = request.ctx.timing
      request.ctx.access = times === undefined ? plans : (resource) => times.timed('access', () => plans(resource))
    }
    done()
  })
}

export default fp(access, { name: 'tablegate-access', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth'] })
