// GET {basePath}/{resource}:export as a route declaration: every row a list would show the caller
// (their fields, tenant, row filter, filter, order) that the export rule allows, streamed as
// NDJSON or CSV from one read-only transaction; each caller streams `exportsPerCaller` at once.
import type { Readable } from 'node:stream'
import type { Runtime } from '../../lib/runtime.js'
import { resourceRoute, type AnyResourceRoute } from '../../lib/route/types.js'
import { EXPORT_TYPES, planExport, type ExportInput, type ExportPlan } from '../../lib/plan/export.js'
import { openExport } from '../../lib/read/export.js'
import { describeExport } from './openapi.js'
import { ExportSlots } from './slots.js'

const EXTENSIONS = { ndjson: 'ndjson', csv: 'csv' } as const

export function exportRoute (runtime: Runtime): AnyResourceRoute {
  const { config, db, services } = runtime
  // An export holds a read connection while it streams: a quarter of the pool at most, so lists go on.
  const slots = new ExportSlots(Math.max(1, Math.floor(config.poolSizes.read / 4)), config.exportsPerCaller)
  return resourceRoute<ExportPlan, Readable>({
    id: 'export',
    method: 'GET',
    target: 'collection',
    customMethod: 'export',
    // Exporting is reading: a caller who may not read hears that, one who may hears of export.
    operations: ['read', 'export'],
    parameters: [
      { name: 'format', in: 'query', schema: { type: 'string', enum: ['ndjson', 'csv'], default: 'ndjson' }, description: 'Or send Accept: text/csv or application/x-ndjson.' },
      'filter', 'order_by', 'fields', 'show_deleted',
    ],
    offered: (access) => access.operations.export.allowed,
    plan: (input) => planExport(input.query as ExportInput, input.headers.accept as string | undefined, input.access, input.ctx.access, services),
    run: async (plan, input) => {
      const release = slots.take(JSON.stringify([input.ctx.tenant ?? null, input.ctx.user?.id ?? null]))
      const gone = new AbortController()
      input.onClose((finished) => {
        release()
        if (!finished) gone.abort()
      })
      return await openExport(db.read, plan, services.pageTokens, { timeoutMs: config.exportTimeoutMs, signal: gone.signal })
    },
    respond: (body, plan, input) => ({
      status: 200,
      type: EXPORT_TYPES[plan.format],
      headers: { 'content-disposition': `attachment; filename="${input.model.name}.${EXTENSIONS[plan.format]}"` },
      body,
    }),
    describe: describeExport,
  })
}
