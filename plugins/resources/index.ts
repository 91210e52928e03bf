// Registers the routes of every resource model under the base path.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { deriveKey } from '../../lib/auth/secret.js'
import { pageTokens } from '../../lib/query/page-token.js'
import { callerFields } from '../../lib/model/fields.js'
import { resourceRoutes } from './routes.js'

async function resources (app: FastifyInstance): Promise<void> {
  const tokens = pageTokens(deriveKey(app.tablegate.db.authSecret, 'page-token'))
  for (const model of app.tablegate.models.values()) {
    await app.register(resourceRoutes, { model, fields: callerFields(model), tokens })
  }
}

export default fp(resources, { name: 'tablegate-resources', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth'] })
