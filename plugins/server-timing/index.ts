// Server-Timing (config `serverTiming`, off by default): every answer says how long its request
// spent verifying the token (auth), resolving access plans (access), planning (plan), on the
// database (db) and writing JSON (serialize). The times ride on the request context
// (lib/timing.ts); registered before authentication, so its stage is counted too.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { StageTimes } from '../../lib/timing.js'

async function serverTiming (app: FastifyInstance): Promise<void> {
  if (!runtimeOf(app).config.serverTiming) return
  // Callback hooks, not async ones: a promise per hook per request is most of what timing costs.
  app.addHook('onRequest', (request, _reply, done) => {
    request.ctx.timing = new StageTimes()
    done()
  })
  app.addHook('onSend', (request, reply, payload, done) => {
    const times = request.ctx?.timing
    if (times !== undefined) reply.header('server-timing', times.header())
    done(null, payload)
  })
}

export default fp(serverTiming, { name: 'tablegate-server-timing', fastify: '5.x', dependencies: ['tablegate'] })
