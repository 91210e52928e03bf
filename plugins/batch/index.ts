// Adds POST {basePath}:batchWrite (./route.ts) to the app's route table.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { batchRoute } from './route.js'

async function batch (app: FastifyInstance): Promise<void> {
  const runtime = runtimeOf(app)
  runtime.routes.addApiRoute(batchRoute(runtime))
}

export default fp(batch, { name: 'tablegate-batch', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
