// Registers the aggregate routes (:facets, :series, :histogram) of every resource model.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { aggregateRoutes } from './routes.js'
import { describeAggregateRoutes } from './openapi.js'

async function aggregates (app: FastifyInstance): Promise<void> {
  const runtime = runtimeOf(app)
  app.tablegate.addApiDescriber(describeAggregateRoutes)
  for (const model of runtime.models.values()) {
    await app.register(aggregateRoutes, { model, runtime })
  }
}

export default fp(aggregates, { name: 'tablegate-aggregates', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
