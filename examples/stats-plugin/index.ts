// A third-party plugin on tablegate's route API: `GET /api/v1/{resource}:stats?field=total` answers
// the count, minimum, maximum and mean of a numeric field over the rows the caller may read (and
// their `filter` keeps). It writes no gate, no parameter check and no OpenAPI: the route table
// gives it the 401/404/403 gate, a `field` checked against the caller's own fields, problem+json
// errors, an operation in the OpenAPI document of each caller who may read the resource, and
// Server-Timing and metrics. Register it with `plugins: [stats]` in the config.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { rows, sql, type FieldModel } from 'tablegate'

interface Stats {
  readonly field: string
  readonly count: number
  readonly min: string | null
  readonly max: string | null
  readonly mean: string | null
}

const NULLABLE_NUMBER = { type: ['string', 'null'], description: 'A decimal number as text, exact; null without rows.' }

async function stats (app: FastifyInstance): Promise<void> {
  app.tablegate.addResourceRoute<Stats>({
    id: 'stats',
    method: 'GET',
    customMethod: 'stats',
    operation: 'read',
    summary: 'Count, minimum, maximum and mean of a numeric field over the records you may read',
    parameters: [{ name: 'field', kind: 'field', types: ['integer', 'bigint', 'number', 'decimal'], required: true, description: 'The numeric field.' }],
    filter: true,
    response: {
      type: 'object',
      properties: { field: { type: 'string' }, count: { type: 'integer', minimum: 0 }, min: NULLABLE_NUMBER, max: NULLABLE_NUMBER, mean: NULLABLE_NUMBER },
      required: ['field', 'count', 'min', 'max', 'mean'],
      additionalProperties: false,
    },
    // Only the caller's rows: `rows` is their tenant, row rules, soft delete and filter.
    handle: async ({ model, params, rows: callersRows, db }) => {
      const field = params.field as FieldModel
      const column = sql.ident(field.column)
      const [found] = await rows<Omit<Stats, 'field'>>(db, sql`SELECT count(${column})::int AS count, min(${column})::text AS min, max(${column})::text AS max, avg(${column})::text AS mean FROM ${model.table} WHERE ${callersRows}`)
      return { field: field.name, ...found! }
    },
  })
}

export default fp(stats, { name: 'tablegate-stats-example', fastify: '5.x', dependencies: ['tablegate'] })
