// A custom write hook, packaged as third-party authors would: an ordinary Fastify plugin that
// depends on `tablegate` and uses only its public decorator and types. Locked orders cannot be
// deleted. The hook sees the stored record (every field, whatever the caller may read), and it
// subscribes to order deletes only, so every other write keeps its one-statement path.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { problem, type WriteEvent } from 'tablegate'

export function lockedOrdersStay (event: WriteEvent): void {
  if (event.before?.status === 'locked') throw problem('conflict', 'A locked order cannot be deleted.')
}

async function shopRules (app: FastifyInstance): Promise<void> {
  app.tablegate.addWriteHook(lockedOrdersStay, { resources: ['orders'], operations: ['delete'] })
}

export default fp(shopRules, { name: 'shop-rules', fastify: '5.x', dependencies: ['tablegate'] })
