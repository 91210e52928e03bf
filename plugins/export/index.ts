// GET {basePath}/{resource}:export: every row a list would show the caller (their fields, tenant,
// row filter, filter, order) that the export rule allows, streamed as NDJSON or CSV from one
// read-only transaction; each caller streams `exportsPerCaller` at once.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { checkKnownParameters } from '../../lib/query/params.js'
import { requireOperation, requireTenant, requireVisible } from '../../lib/access/require.js'
import { EXPORT_TYPES, planExport, type ExportInput } from '../../lib/plan/export.js'
import { openExport } from '../../lib/read/export.js'
import { describeExports } from './openapi.js'
import { ExportSlots } from './slots.js'

const PARAMETERS = ['format', 'filter', 'order_by', 'fields', 'show_deleted']
const EXTENSIONS = { ndjson: 'ndjson', csv: 'csv' } as const

async function exportRoutes (app: FastifyInstance): Promise<void> {
  const { config, db, services } = runtimeOf(app)
  app.tablegate.addApiDescriber(describeExports)
  // An export holds a read connection while it streams: a quarter of the pool at most, so lists go on.
  const slots = new ExportSlots(Math.max(1, Math.floor(config.poolSizes.read / 4)), config.exportsPerCaller)
  for (const model of runtimeOf(app).models.values()) {
    const path = `${config.basePath}/${model.name}`.replace(/:/g, '::')
    app.get(`${path}::export`, async (request, reply) => {
      const access = requireVisible(request.ctx.access(model.name))
      // Exporting is reading: a caller who may not read hears that, one who may hears of export.
      requireOperation(access, model, 'read')
      requireOperation(access, model, 'export')
      const query = request.query as ExportInput & Record<string, unknown>
      checkKnownParameters(query, PARAMETERS)
      requireTenant(model, request.ctx.tenant)
      const times = request.ctx.timing
      times?.mark()
      const plan = planExport(query, request.headers.accept, access, services)
      times?.lap('plan')
      const release = slots.take(JSON.stringify([request.ctx.tenant ?? null, request.ctx.user?.id ?? null]))
      const gone = new AbortController()
      reply.raw.once('close', () => {
        release()
        if (!reply.raw.writableFinished) gone.abort()
      })
      const body = await openExport(db.read, plan, { timeoutMs: config.exportTimeoutMs, signal: gone.signal })
      times?.lap('db')
      return reply
        .type(EXPORT_TYPES[plan.format])
        .header('content-disposition', `attachment; filename="${model.name}.${EXTENSIONS[plan.format]}"`)
        .send(body)
    })
  }
}

export default fp(exportRoutes, { name: 'tablegate-export', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
