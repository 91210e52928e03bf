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

type Query = Record<string, unknown>

export interface AggregateRouteOptions {
  readonly model: ResourceModel
  readonly runtime: Runtime
}

const JSON_TYPE = 'application/json; charset=utf-8'

/** An aggregate: its parameters, its planner and its reader (one read-only statement → JSON). */
interface Aggregate<P> {
  readonly parameters: readonly string[]
  readonly plan: (query: Query, access: AccessPlan, services: AppServices) => P
  readonly read: (db: Queryable, plan: P) => Promise<string>
}

function aggregate<P> (definition: Aggregate<P>): Aggregate<unknown> {
  return definition as Aggregate<unknown>
}

const AGGREGATES: Record<string, Aggregate<unknown>> = {
  facets: aggregate({ parameters: ['field', 'filter', 'limit', 'show_deleted'], plan: planFacets, read: readFacets }),
  series: aggregate({ parameters: ['field', 'range', 'from', 'to', 'granularity', 'time_zone', 'filter', 'show_deleted'], plan: planSeries, read: readSeries }),
  histogram: aggregate({ parameters: ['field', 'buckets', 'filter', 'show_deleted'], plan: planHistogram, read: readHistogram }),
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
      const times = request.ctx.timing
      times?.mark()
      const plan = aggregate.plan(query, access, services)
      times?.lap('plan')
      const json = await aggregate.read(db.read, plan)
      times?.lap('db')
      return reply.type(JSON_TYPE).send(json)
    })
  }
}
