// Registers the routes of every resource model under the base path.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { resourceRoutes } from './routes.js'
import { describeResourceRoutes } from './openapi.js'

async function resources (app: FastifyInstance): Promise<void> {
  const runtime = runtimeOf(app)
  app.tablegate.addApiDescriber(describeResourceRoutes)
  for (const model of runtime.models.values()) {
    await app.register(resourceRoutes, { model, runtime })
  }
}

export default fp(resources, { name: 'tablegate-resources', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
