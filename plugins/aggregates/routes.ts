// `GET /{resource}:facets`, `:series` and `:histogram`. Handlers only glue HTTP to the stages:
// access (read, tenant) → params → plan → one read-only statement → JSON, as lists do.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ResourceModel } from '../../lib/model/types.js'
import type { AccessPlan } from '../../lib/access/types.js'
import type { AppServices, Runtime } from '../../lib/runtime.js'
import type { Queryable } from '../../lib/db/query.js'
import { requireOperation, requireTenant, requireVisible } from '../../lib/access/require.js'
import { checkKnownParameters } from '../../lib/query/params.js'
import { planFacets, planHistogram, planSeries } from '../../lib/plan/aggregates.js'
import { readFacets, readHistogram, readSeries } from '../../lib/read/aggregates.js'
import type { StageTimes } from '../../lib/timing.js'

type Query = Record<string, unknown>

export interface AggregateRouteOptions {
  readonly model: ResourceModel
  readonly runtime: Runtime
}

const JSON_TYPE = 'application/json; charset=utf-8'

/** Each aggregate: its parameters, and how a query string becomes its JSON. */
const AGGREGATES: Record<string, { parameters: readonly string[], answer: (query: Query, access: AccessPlan, services: AppServices, db: Queryable, times: StageTimes | undefined) => Promise<string> }> = {
  facets: {
    parameters: ['field', 'filter', 'limit', 'show_deleted'],
    answer: async (query, access, services, db, times) => {
      times?.mark()
      const plan = planFacets(query, access, services)
      times?.lap('plan')
      const json = await readFacets(db, plan)
      times?.lap('db')
      return json
    },
  },
  series: {
    parameters: ['field', 'range', 'from', 'to', 'granularity', 'time_zone', 'filter', 'show_deleted'],
    answer: async (query, access, services, db, times) => {
      times?.mark()
      const plan = planSeries(query, access, services)
      times?.lap('plan')
      const json = await readSeries(db, plan)
      times?.lap('db')
      return json
    },
  },
  histogram: {
    parameters: ['field', 'buckets', 'filter', 'show_deleted'],
    answer: async (query, access, services, db, times) => {
      times?.mark()
      const plan = planHistogram(query, access, services)
      times?.lap('plan')
      const json = await readHistogram(db, plan)
      times?.lap('db')
      return json
    },
  },
}

export async function aggregateRoutes (app: FastifyInstance, options: AggregateRouteOptions): Promise<void> {
  const { model, runtime } = options
  const { config, db, services } = runtime
  const collectionPath = `${config.basePath}/${model.name}`.replace(/:/g, '::')

  for (const [name, aggregate] of Object.entries(AGGREGATES)) {
    app.get(`${collectionPath}::${name}`, async (request: FastifyRequest, reply) => {
      const access = requireVisible(request.ctx.access(model.name))
      requireOperation(access, model, 'read')
      const query = request.query as Query
      checkKnownParameters(query, aggregate.parameters)
      requireTenant(model, request.ctx.tenant)
      return reply.type(JSON_TYPE).send(await aggregate.answer(query, access, services, db.read, request.ctx.timing))
    })
  }
}
