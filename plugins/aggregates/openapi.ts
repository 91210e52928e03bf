// The parameters and answers of :facets, :series and :histogram in a caller's OpenAPI document:
// `field` lists only the fields the caller may use for each (with the to-one paths to a related
// record's they may use: `customer.country`), and an aggregate with no field to use, of its own or
// at the end of such a path, is not offered (./routes.ts).
import type { ApiContext, JsonSchema, ResourceApi } from '../../lib/openapi/document.js'
import type { FieldType } from '../../lib/model/types.js'
import type { InlineParameter } from '../../lib/route/parameters.js'
import { aggregatePaths, COUNTABLE, NUMERIC, TEMPORAL } from '../../lib/plan/aggregates.js'

// A count of rows: as a JSON number, within the range a double holds exactly (no table has 2^53 rows).
const COUNT = { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }

const query = (name: string, schema: JsonSchema, description: string): InlineParameter => ({ name, in: 'query', schema, description })

/** `field`, required, naming the caller's fields of these types. */
function fieldParameter (types: readonly FieldType[], description: string): InlineParameter {
  return { name: 'field', in: 'query', required: true, schema: (access, api) => ({ type: 'string', enum: aggregatePaths(access, (resource) => api.accessOf(resource), types) }), description }
}

const answer = (summary: string, api: ApiContext, schema: JsonSchema): JsonSchema =>
  ({ summary, responses: { 200: { description: summary, ...api.json(schema) }, ...api.problems(400, 401, 403, 504) } })

export const FACETS_PARAMETERS = [
  fieldParameter(COUNTABLE, 'The field to count by.'),
  query('limit', { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20 }, 'The most frequent values to return.'),
] as const

export function describeFacets (api: ApiContext, resource: ResourceApi): JsonSchema {
  return answer(`Counts of ${resource.name} per value of a field`, api, {
    type: 'object',
    properties: { field: { type: 'string' }, facets: { type: 'array', items: { type: 'object', properties: { value: {}, count: COUNT }, required: ['value', 'count'] } } },
    required: ['field', 'facets'],
  })
}

export const SERIES_PARAMETERS = [
  fieldParameter(TEMPORAL, 'The timestamp or date field to count over.'),
  query('range', { type: 'string', enum: ['7d', '30d', '90d', '1y', 'all'], default: '30d' }, 'The span up to now, or all of the data; or send from and to.'),
  query('from', { type: 'string' }, 'Start (inclusive): an ISO 8601 date or date-time; without an offset, wall time in time_zone.'),
  query('to', { type: 'string' }, 'End (exclusive), as from.'),
  query('granularity', { type: 'string', enum: ['hour', 'day', 'week', 'month', 'quarter', 'year'] }, 'Bucket size; chosen from the span when absent.'),
  query('time_zone', { type: 'string', default: 'UTC' }, 'IANA time zone whose local boundaries the buckets follow.'),
] as const

export function describeSeries (api: ApiContext, resource: ResourceApi): JsonSchema {
  const instant = { type: ['string', 'null'], format: 'date-time' }
  return answer(`Counts of ${resource.name} over time`, api, {
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

export const HISTOGRAM_PARAMETERS = [
  fieldParameter(NUMERIC, 'The numeric field.'),
  query('buckets', { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 10 }, 'Equal-width buckets between the minimum and maximum.'),
] as const

export function describeHistogram (api: ApiContext, resource: ResourceApi): JsonSchema {
  const edge = { type: ['number', 'string', 'null'] }
  return answer(`Distribution of ${resource.name} over a numeric field`, api, {
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
