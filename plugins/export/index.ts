// Adds the :export route (./routes.ts) to the app's route table.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { exportRoute } from './routes.js'

async function exportRoutes (app: FastifyInstance): Promise<void> {
  const runtime = runtimeOf(app)
  runtime.routes.addResourceRoute(exportRoute(runtime))
}

export default fp(exportRoutes, { name: 'tablegate-export', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
