// Access: after authentication, `request.ctx.access(resource)` resolves the caller's AccessPlan
// for a resource once per request; every route and feature reads it from there.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { resolveAccess, type AccessSettings } from '../../lib/access/resolve.js'
import type { AccessPlan } from '../../lib/access/types.js'

async function access (app: FastifyInstance): Promise<void> {
  const { config, models } = app.tablegate
  const settings: AccessSettings = { bundles: config.roles.bundles, defaultAccess: config.config.defaultAccess }
  app.addHook('onRequest', async (request) => {
    const { user, tenant } = request.ctx
    if (user === null) return
    const resolved = new Map<string, AccessPlan>()
    request.ctx.access = (resource) => {
      let plan = resolved.get(resource)
      if (plan === undefined) {
        const model = models.get(resource)
        if (model === undefined) throw new Error(`no resource named ${resource}`)
        plan = resolveAccess({ user, tenant }, model, settings)
        resolved.set(resource, plan)
      }
      return plan
    }
  })
}

export default fp(access, { name: 'tablegate-access', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth'] })
