// POST {basePath}:batchWrite: many writes, in order, all or none (plugins/batch/run.ts).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { checkKnownParameters } from '../../lib/query/params.js'
import { parseOperations } from './operations.js'
import { runBatch } from './run.js'
import { describeBatch } from './openapi.js'

async function batch (app: FastifyInstance): Promise<void> {
  const { config, db, services } = runtimeOf(app)
  app.tablegate.addApiDescriber(describeBatch)
  app.post(`${config.basePath.replace(/:/g, '::')}::batchWrite`, async (request, reply) => {
    checkKnownParameters(request.query as Record<string, unknown>, [])
    const operations = parseOperations(request.body)
    const context = { ctx: request.ctx, services, rowPermissions: config.rowPermissions, timeoutMs: config.statementTimeoutMs }
    // A batch's stages interleave operation by operation: its work counts as db.
    request.ctx.timing?.mark()
    const json = await runBatch(operations, context, db.app)
    request.ctx.timing?.lap('db')
    return reply.code(200).type('application/json; charset=utf-8').send(json)
  })
}

export default fp(batch, { name: 'tablegate-batch', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
