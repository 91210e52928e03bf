// `GET /{resource}:facets`, `:series` and `:histogram` as route declarations: each plans from its
// parameters and reads in one read-only statement whose answer is JSON, as lists do.
import type { FieldType } from '../../lib/model/types.js'
import type { AccessPlan } from '../../lib/access/types.js'
import type { AppServices, Runtime } from '../../lib/runtime.js'
import type { Queryable } from '../../lib/db/query.js'
import type { ApiContext, JsonSchema, ResourceApi } from '../../lib/openapi/document.js'
import type { RouteParameter } from '../../lib/route/parameters.js'
import { resourceRoute, type AnyResourceRoute } from '../../lib/route/types.js'
import { COUNTABLE, NUMERIC, TEMPORAL, aggregatePaths, planFacets, planHistogram, planSeries } from '../../lib/plan/aggregates.js'
import { readFacets, readHistogram, readSeries } from '../../lib/read/aggregates.js'
import { describeFacets, describeHistogram, describeSeries, FACETS_PARAMETERS, HISTOGRAM_PARAMETERS, SERIES_PARAMETERS } from './openapi.js'

type Query = Record<string, unknown>

const JSON_TYPE = 'application/json; charset=utf-8'
const COMMON: readonly RouteParameter[] = ['filter', 'show_deleted']

/** An aggregate: its parameters, the fields it works on, its planner, its reader and its description. */
interface Aggregate<P> {
  readonly name: string
  readonly parameters: readonly RouteParameter[]
  readonly types: readonly FieldType[]
  readonly plan: (query: Query, access: AccessPlan, services: AppServices, accessOf: (resource: string) => AccessPlan) => P
  readonly read: (db: Queryable, plan: P) => Promise<string>
  readonly describe: (api: ApiContext, resource: ResourceApi) => JsonSchema
}

function aggregateRoute<P> (aggregate: Aggregate<P>, runtime: Runtime): AnyResourceRoute {
  const { db, services } = runtime
  return resourceRoute({
    id: aggregate.name,
    method: 'GET',
    target: 'collection',
    customMethod: aggregate.name,
    operations: ['read'],
    operationClass: 'aggregate',
    parameters: [...aggregate.parameters, ...COMMON],
    // Offered where the caller may read and has a field to aggregate: their own, or a related
    // record's at the end of a to-one path they may follow (`customer.since`).
    offered: (access, accessOf) => access.operations.read.allowed && aggregatePaths(access, accessOf, aggregate.types).length > 0,
    plan: (input) => aggregate.plan(input.query, input.access, services, input.ctx.access),
    run: async (plan) => await aggregate.read(db.read, plan),
    respond: (json) => ({ status: 200, type: JSON_TYPE, body: json }),
    describe: aggregate.describe,
  })
}

export function aggregateRoutes (runtime: Runtime): AnyResourceRoute[] {
  return [
    aggregateRoute({ name: 'facets', parameters: FACETS_PARAMETERS, types: COUNTABLE, plan: planFacets, read: readFacets, describe: describeFacets }, runtime),
    aggregateRoute({ name: 'series', parameters: SERIES_PARAMETERS, types: TEMPORAL, plan: planSeries, read: readSeries, describe: describeSeries }, runtime),
    aggregateRoute({ name: 'histogram', parameters: HISTOGRAM_PARAMETERS, types: NUMERIC, plan: planHistogram, read: readHistogram, describe: describeHistogram }, runtime),
  ]
}
