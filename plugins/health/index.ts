// GET /healthz (the process answers) and GET /readyz (it can serve: database and keys), outside
// the API and its tokens, for load balancers and orchestrators. Fixed, minimal bodies.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { problem } from '../../lib/problems.js'
import { readiness } from './readiness.js'

async function health (app: FastifyInstance): Promise<void> {
  const { db, verifier } = runtimeOf(app)
  const options = { config: { public: true, requestLimits: false } } as const
  app.get('/healthz', options, async (_request, reply) => {
    return reply.header('cache-control', 'no-store').type('application/json').send('{"status":"ok"}')
  })
  app.get('/readyz', options, async (_request, reply) => {
    const { ready, reason } = await readiness(db.app, verifier.keySet)
    reply.header('cache-control', 'no-store')
    if (!ready) throw problem('service-unavailable', `Not ready: ${reason ?? 'unknown'}.`, {}, { 'retry-after': '1' })
    return reply.type('application/json').send('{"status":"ready"}')
  })
}

export default fp(health, { name: 'tablegate-health', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth'] })
