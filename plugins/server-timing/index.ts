// Server-Timing (config `serverTiming`, off by default): every answer says how long its request
// spent verifying the token (auth), resolving access plans (access), planning (plan), waiting on
// PostgreSQL (db) and writing JSON (serialize). Registered first, so the whole request runs with
// its own times (lib/timing.ts).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { performance } from 'node:perf_hooks'
import { runtimeOf } from '../../lib/runtime.js'
import { StageTimes } from '../../lib/timing.js'
import { statementTracing, type StatementTrace } from '../../lib/db/query.js'

async function serverTiming (app: FastifyInstance): Promise<void> {
  const { timings } = runtimeOf(app).services
  if (timings === undefined) return
  app.addHook('onRequest', (_request, _reply, done) => { timings.run(new StageTimes(), done) })
  // Statements are timed from the diagnostics channel lib/db/query.ts traces them on; a statement
  // of another app (or of no request) finds no times of this app's and is left alone.
  const running = new WeakMap<StatementTrace, { readonly times: StageTimes, readonly started: number }>()
  const statements = {
    start (trace: StatementTrace): void {
      const times = timings.current()
      if (times !== undefined) running.set(trace, { times, started: performance.now() })
    },
    asyncEnd (trace: StatementTrace): void {
      const run = running.get(trace)
      if (run === undefined) return
      run.times.add('db', performance.now() - run.started)
      running.delete(trace)
    },
  }
  // @types/node 20 asks for a handler of every event; Node takes any subset.
  const subscribers = statements as unknown as Parameters<typeof statementTracing.subscribe>[0]
  statementTracing.subscribe(subscribers)
  app.addHook('onClose', async () => { statementTracing.unsubscribe(subscribers) })
  app.addHook('onSend', async (_request, reply) => {
    const times = timings.current()
    if (times !== undefined) reply.header('server-timing', times.header())
  })
}

export default fp(serverTiming, { name: 'tablegate-server-timing', fastify: '5.x', dependencies: ['tablegate'] })
