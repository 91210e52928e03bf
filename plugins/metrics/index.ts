// GET {apiRoot}/metrics: the app's metrics in Prometheus text, for callers holding the metrics
// role (config `metrics.role`, default admin); everyone else gets a 403. `metrics: false` turns
// them off: no route, and no work per request.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { problem } from '../../lib/problems.js'
import { checkKnownParameters } from '../../lib/query/params.js'
import { appMetrics } from './registry.js'

async function metrics (app: FastifyInstance): Promise<void> {
  const runtime = runtimeOf(app)
  const { config } = runtime
  if (config.metrics === undefined) return
  const { role } = config.metrics
  const collected = appMetrics(runtime, `${config.apiRoot}/auth/sign-in/email`)
  // Observed as the answer is handed over (onSend), with a callback: an onResponse hook makes
  // Fastify follow every response to its end, which cost 3-6 % of a list page's CPU.
  app.addHook('onSend', (request, reply, payload, done) => {
    collected.observe({ route: request.routeOptions.url, method: request.method, status: reply.statusCode, seconds: reply.elapsedTime / 1000 })
    done(null, payload)
  })
  app.get(`${config.apiRoot}/metrics`, async (request, reply) => {
    if (request.ctx.user?.roles.includes(role) !== true) {
      throw problem('access-denied', `Metrics are for callers with the ${role} role.`)
    }
    checkKnownParameters(request.query as Record<string, unknown>, [])
    return reply.type(collected.registry.contentType).send(await collected.registry.metrics())
  })
}

export default fp(metrics, { name: 'tablegate-metrics', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth'] })
