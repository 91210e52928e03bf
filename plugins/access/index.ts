// Access: after authentication, `request.ctx.access(resource)` resolves the caller's AccessPlan
// for a resource once per request; every route and feature reads it from there.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { callerKey, resolveAccess, type AccessSettings } from '../../lib/access/resolve.js'
import type { AccessPlan } from '../../lib/access/types.js'
import { BoundedCache } from '../../lib/query/cache.js'

async function access (app: FastifyInstance): Promise<void> {
  const { config, models } = app.tablegate
  const settings: AccessSettings = { bundles: config.roles.bundles, defaultAccess: config.config.defaultAccess }
  // Rules see only the caller (id, roles, tenant), the resource and the operation, so a plan is
  // kept per caller shape: a client's repeated requests resolve nothing again.
  const plans = new BoundedCache<AccessPlan>(10_000)
  app.addHook('onRequest', async (request) => {
    const { user, tenant } = request.ctx
    if (user === null) return
    const caller = { user, tenant }
    const key = callerKey(caller)
    request.ctx.access = (resource) => plans.getOrCreate(`${resource}\0${key}`, () => {
      const model = models.get(resource)
      if (model === undefined) throw new Error(`no resource named ${resource}`)
      return resolveAccess(caller, model, settings, key)
    })
  })
}

export default fp(access, { name: 'tablegate-access', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth'] })
