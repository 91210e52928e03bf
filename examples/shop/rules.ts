// A custom write hook, packaged as third-party authors would: an ordinary Fastify plugin that
// depends on `tablegate` and uses only its public decorator. Locked orders cannot be deleted.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { problem } from 'tablegate'

async function shopRules (app: FastifyInstance): Promise<void> {
  app.tablegate.addWriteHook(async function lockedOrdersStay (event) {
    if (event.resource === 'orders' && event.operation === 'delete' && event.before?.status === 'locked') {
      throw problem('conflict', 'A locked order cannot be deleted.')
    }
  })
}

export default fp(shopRules, { name: 'shop-rules', fastify: '5.x', dependencies: ['tablegate'] })
