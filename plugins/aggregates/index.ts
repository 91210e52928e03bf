// Adds the aggregate routes (:facets, :series, :histogram) to the app's route table.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { aggregateRoutes } from './routes.js'

async function aggregates (app: FastifyInstance): Promise<void> {
  const runtime = runtimeOf(app)
  for (const route of aggregateRoutes(runtime)) runtime.routes.addResourceRoute(route)
}

export default fp(aggregates, { name: 'tablegate-aggregates', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
