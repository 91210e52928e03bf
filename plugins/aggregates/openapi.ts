// :facets, :series and :histogram in a caller's OpenAPI document: on resources the caller may
// read, with `field` listing only the fields each may use.
import type { ApiContext, JsonSchema, PathItems, ResourceApi } from '../../lib/openapi/document.js'
import type { FieldType } from '../../lib/model/types.js'
import { COUNTABLE, NUMERIC, TEMPORAL } from '../../lib/plan/aggregates.js'

const query = (name: string, schema: JsonSchema, description: string, required = false): JsonSchema =>
  ({ name, in: 'query', required, schema, description })

const COUNT = { type: 'integer', minimum: 0 }

function describeAggregates (api: ApiContext, resource: ResourceApi): PathItems {
  const { access, collectionPath, name } = resource
  if (!access.operations.read.allowed) return {}
  const names = (types: readonly FieldType[]): string[] => [...access.query.filterable.values()].filter((f) => types.includes(f.type)).map((f) => f.name)
  const common = [api.parameter('filter'), ...(access.showDeleted ? [api.parameter('show_deleted')] : [])]
  const operation = (id: string, summary: string, parameters: JsonSchema[], answer: JsonSchema): Record<string, unknown> => ({
    get: {
      operationId: `${id}_${name}`,
      tags: [name],
      summary,
      parameters: [...parameters, ...common],
      responses: { 200: { description: summary, ...api.json(answer) }, ...api.problems(400, 401, 403, 504) },
    },
  })
  const paths: PathItems = {}
  const any = names(COUNTABLE)
  if (any.length > 0) {
    paths[`${collectionPath}:facets`] = operation('facets', `Counts of ${name} per value of a field`, [
      query('field', { type: 'string', enum: any }, 'The field to count by.', true),
      query('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'The most frequent values to return.'),
    ], {
      type: 'object',
      properties: { field: { type: 'string' }, facets: { type: 'array', items: { type: 'object', properties: { value: {}, count: COUNT }, required: ['value', 'count'] } } },
      required: ['field', 'facets'],
    })
  }
  const temporal = names(TEMPORAL)
  if (temporal.length > 0) {
    const instant = { type: ['string', 'null'], format: 'date-time' }
    paths[`${collectionPath}:series`] = operation('series', `Counts of ${name} over time`, [
      query('field', { type: 'string', enum: temporal }, 'The timestamp or date field to count over.', true),
      query('range', { type: 'string', enum: ['7d', '30d', '90d', '1y', 'all'], default: '30d' }, 'The span up to now, or all of the data; or send from and to.'),
      query('from', { type: 'string' }, 'Start (inclusive): an ISO 8601 date or date-time; without an offset, wall time in time_zone.'),
      query('to', { type: 'string' }, 'End (exclusive), as from.'),
      query('granularity', { type: 'string', enum: ['hour', 'day', 'week', 'month', 'quarter', 'year'] }, 'Bucket size; chosen from the span when absent.'),
      query('time_zone', { type: 'string', default: 'UTC' }, 'IANA time zone whose local boundaries the buckets follow.'),
    ], {
      type: 'object',
      properties: {
        field: { type: 'string' },
        granularity: { type: ['string', 'null'] },
        time_zone: { type: 'string' },
        from: instant,
        to: instant,
        buckets: { type: 'array', items: { type: 'object', properties: { start: { type: 'string', format: 'date-time' }, count: COUNT }, required: ['start', 'count'] } },
      },
      required: ['field', 'buckets'],
    })
  }
  const numeric = names(NUMERIC)
  if (numeric.length > 0) {
    const edge = { type: ['number', 'string', 'null'] }
    paths[`${collectionPath}:histogram`] = operation('histogram', `Distribution of ${name} over a numeric field`, [
      query('field', { type: 'string', enum: numeric }, 'The numeric field.', true),
      query('buckets', { type: 'integer', minimum: 1, maximum: 100, default: 10 }, 'Equal-width buckets between the minimum and maximum.'),
    ], {
      type: 'object',
      properties: {
        field: { type: 'string' },
        min: edge,
        max: edge,
        buckets: { type: 'array', items: { type: 'object', properties: { start: edge, end: edge, count: COUNT }, required: ['start', 'end', 'count'] } },
        nulls: COUNT,
      },
      required: ['field', 'buckets', 'nulls'],
    })
  }
  return paths
}

export function describeAggregateRoutes (api: ApiContext): PathItems {
  return Object.assign({}, ...api.resources.map((r) => describeAggregates(api, r))) as PathItems
}
