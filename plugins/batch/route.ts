// POST {basePath}:batchWrite as an API route: many writes, in order, all or none. The engine
// gates each operation's resource with the gate of resource routes (lib/write/batch.ts).
import type { Runtime } from '../../lib/runtime.js'
import { apiRoute, type AnyApiRoute } from '../../lib/route/api-route.js'
import { parseOperations, type BatchOperation } from '../../lib/write/batch-operations.js'
import { runBatch } from '../../lib/write/batch.js'
import { describeBatch } from './openapi.js'

export function batchRoute (runtime: Runtime): AnyApiRoute {
  const { config, db, services } = runtime
  return apiRoute<readonly BatchOperation[], string>({
    id: 'batchWrite',
    method: 'POST',
    customMethod: 'batchWrite',
    parameters: [],
    plan: (input) => parseOperations(input.body),
    // A batch's stages interleave operation by operation: its work counts as db.
    run: async (operations, input) => {
      const results = await runBatch(operations, { ctx: input.ctx, services, rowPermissions: config.rowPermissions, timeoutMs: config.statementTimeoutMs }, db.app)
      // A batch that wrote to a resource whose changes the pipeline records wakes the change feed.
      if (operations.some((op) => runtime.models.get(op.resource)?.changes === 'pipeline')) runtime.changes?.written()
      return results
    },
    respond: (json) => ({ status: 200, type: 'application/json; charset=utf-8', body: json }),
    describe: describeBatch,
  })
}
