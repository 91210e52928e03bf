// Registers the routes of every resource model under the base path.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { deriveKey } from '../../lib/auth/secret.js'
import { pageTokens } from '../../lib/query/page-token.js'
import { queryModel } from '../../lib/model/fields.js'
import { perSelection } from '../../lib/model/selection.js'
import { BoundedCache } from '../../lib/query/cache.js'
import type { CheckResult } from '../../lib/query/filter/checker.js'
import type { OrderResult } from '../../lib/query/order-by.js'
import { resourceRoutes } from './routes.js'

async function resources (app: FastifyInstance): Promise<void> {
  const { db, models, capabilities, config } = app.tablegate
  const tokens = pageTokens(deriveKey(db.authSecret, 'page-token'))
  const filters = new BoundedCache<CheckResult>(2000)
  const orders = new BoundedCache<OrderResult>(2000)
  const rowPermissions = config.config.rowPermissions ?? true
  for (const model of models.values()) {
    const withPermissions = rowPermissions === true || (typeof rowPermissions === 'object' && !rowPermissions.except.includes(model.name))
    await app.register(resourceRoutes, {
      model,
      list: { model, tokens, filters, orders, rowPermissions: withPermissions },
      queryModel: perSelection((readable) => queryModel(model.name, readable, capabilities.trigram)),
    })
  }
}

export default fp(resources, { name: 'tablegate-resources', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
