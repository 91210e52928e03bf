// Aggregate parameters → plans, with no I/O: `:facets`, `:series` and `:histogram` count the rows a
// list with the same filter and show_deleted would return (tenant, row filter and soft delete
// included), over one field of the caller's restricted model, or of a related record's through
// to-one relations (`customer.country`, lib/query/paths.ts). A hidden field is not in it, so it
// is refused exactly like a field that does not exist.
import type { AccessPlan } from '../access/types.js'
import type { FieldModel, FieldType } from '../model/types.js'
import { UNATTACHED, type CheckedFilter, type QueryModel } from '../query/filter/checked.js'
import { invalidParameter, parseShowDeleted, textParameter } from '../query/params.js'
import { MAX_HOPS, pathName, pathsFrom, resolvePath, type PathPurpose, type RelationGraph, type ScopedHop } from '../query/paths.js'
import { MAX_FILTER_QUERY, planFilter } from './filter.js'
import { attachHops, callerGraph, type AccessOf } from './graph.js'
import { readScope, type PlanServices } from './read.js'
import type { ReadScope } from './types.js'
import type { ResourceModel } from '../model/types.js'

/** What every aggregate counts: the caller's rows under their filter. */
export interface AggregateRows {
  readonly model: ResourceModel
  readonly scope: ReadScope
  readonly filter: CheckedFilter | undefined
  /** The filter as the caller wrote it (spans in errors point into it). */
  readonly filterText: string
  /** The field as asked: `country`, `customer.country`. */
  readonly name: string
  /** The field counted by: the resource's own, or the target's at the end of `via`. */
  readonly field: FieldModel
  /**
   * The to-one relations followed to `field` (empty for a field of the resource's own). Its value is
   * NULL where the reference is null or names a row the caller may not read, counted as a null is.
   */
  readonly via: readonly ScopedHop[]
}

export interface FacetsPlan extends AggregateRows {
  readonly kind: 'facets'
  readonly limit: number
}

export const GRANULARITIES = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const
export type Granularity = typeof GRANULARITIES[number]
export const RANGES = ['7d', '30d', '90d', '1y', 'all'] as const
export type SeriesRange = typeof RANGES[number]

/** An instant of a `from` or `to`: with an offset (or Z) it is absolute, without one it is wall time in the series' zone. */
export interface SeriesInstant {
  readonly text: string
  readonly local: boolean
}

/**
 * The rows a series counts: a range back from now (bucket-aligned), all of them (known as `span`
 * once their first and last instants are read), or `from` (inclusive) to `to` (exclusive).
 */
export type SeriesWindow =
  | { readonly kind: 'range', readonly range: Exclude<SeriesRange, 'all'> }
  | { readonly kind: 'all' }
  | { readonly kind: 'span', readonly first: string, readonly last: string }
  | { readonly kind: 'between', readonly from: SeriesInstant, readonly to: SeriesInstant }

export interface SeriesPlan extends AggregateRows {
  readonly kind: 'series'
  /** Undefined until known: chosen from the range, or (range=all) from the data's span. */
  readonly granularity: Granularity | undefined
  readonly timeZone: string
  readonly window: SeriesWindow
}

export interface HistogramPlan extends AggregateRows {
  readonly kind: 'histogram'
  readonly buckets: number
}

export const FACETS_LIMIT = { default: 20, max: 100 }
export const HISTOGRAM_BUCKETS = { default: 10, max: 100 }
/** More buckets than this is a request for another granularity, not a chart. */
export const MAX_SERIES_BUCKETS = 10_000

export const COUNTABLE: readonly FieldType[] = ['string', 'integer', 'bigint', 'number', 'decimal', 'boolean', 'date', 'timestamp', 'uuid']
export const TEMPORAL: readonly FieldType[] = ['timestamp', 'date']
export const NUMERIC: readonly FieldType[] = ['integer', 'bigint', 'number', 'decimal']

/**
 * The longest each granularity's bucket can be, in ms (a day with a DST hour added, a 31-day month):
 * a span longer than MAX_SERIES_BUCKETS + 1 of them certainly makes too many buckets, refused before
 * any query. Closer calls are settled exactly by the query itself (lib/read/aggregates.ts).
 */
const LONGEST_MS: Readonly<Record<Granularity, number>> = {
  hour: 3_600_000, day: 90_000_000, week: 608_400_000, month: 31 * 86_400_000 + 3_600_000, quarter: 92 * 86_400_000 + 3_600_000, year: 366 * 86_400_000 + 3_600_000,
}
const RANGE_MS: Readonly<Record<Exclude<SeriesRange, 'all'>, number>> = {
  '7d': 7 * 86_400_000, '30d': 30 * 86_400_000, '90d': 90 * 86_400_000, '1y': 366 * 86_400_000,
}

function once (parameter: string, value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'string') return value
  return invalidParameter(parameter, `${parameter} must be given once.`)
}

/** A whole number from 1 to `max`, `fallback` when absent. */
function count (parameter: string, value: unknown, limits: { default: number, max: number }): number {
  const text = once(parameter, value)
  if (text === undefined) return limits.default
  if (!/^[0-9]{1,6}$/.test(text) || Number(text) < 1 || Number(text) > limits.max) {
    invalidParameter(parameter, `${parameter} must be a whole number from 1 to ${limits.max}.`)
  }
  return Number(text)
}

/** The fields of these types the caller may filter on in a query model: the ones they may aggregate. */
export function aggregatable (query: QueryModel, types: readonly FieldType[]): ReadonlyMap<string, FieldModel> {
  return new Map([...query.filterable].filter(([, f]) => types.includes(f.type)))
}

/** Every `field` the caller may give an aggregate of these types: their fields, then the paths to related records' (`customer.country`). */
export function aggregatePaths (access: AccessPlan, accessOf: AccessOf, types: readonly FieldType[]): string[] {
  return pathsFrom(access.query, callerGraph(accessOf), aggregatePurpose(types))
}

/** An aggregate's paths: through to-one relations to a field of these types the caller may filter on. */
function aggregatePurpose (types: readonly FieldType[]): PathPurpose {
  return { fields: (query) => aggregatable(query, types), toMany: false, endOnRelation: false, keys: false }
}

/** Any field the caller may filter on: a path to one of another type is refused for its type, not as unknown. */
const FILTERABLE_PATHS: PathPurpose = { fields: (query) => query.filterable, toMany: false, endOnRelation: false, keys: false }

/** What `field` names: a field, or a path to one through to-one relations the caller may follow. */
interface AggregateField {
  readonly name: string
  readonly field: FieldModel
  readonly via: readonly ScopedHop[]
}

/**
 * `field`: one the caller may filter on, of the types the aggregate takes, here or at the end of
 * a to-one path; hidden and unknown read the same, and a did-you-mean names only what would work.
 */
function aggregateField (query: QueryModel, graph: RelationGraph, value: unknown, route: string, types: readonly FieldType[], purpose: string): AggregateField {
  const name = once('field', value)
  if (name === undefined || name === '') return invalidParameter('field', `field is required: the field to ${purpose}.`)
  const steps = name.split('.')
  const resolved = resolvePath(steps, query, graph, FILTERABLE_PATHS)
  if (resolved.ok) {
    const field = resolved.path.field!
    if (!types.includes(field.type)) {
      invalidParameter('field', `'${name}' is of type ${field.type}: :${route} takes a field of type ${types.slice(0, -1).join(', ')} or ${types.at(-1)!}.`)
    }
    return { name: pathName(field, resolved.path.hops), field, via: resolved.path.hops.map((hop) => ({ ...hop, scope: UNATTACHED })) }
  }
  const { failure } = resolved
  switch (failure.reason) {
    case 'unknown': {
      // Suggested among the fields of the right types only, so resolved again for the candidates.
      const typed = resolvePath(steps, query, graph, aggregatePurpose(types))
      const suggestion = typed.ok || typed.failure.reason !== 'unknown' ? undefined : typed.failure.suggestion
      return invalidParameter('field', `There is no field '${name}' to ${purpose}${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}.`)
    }
    case 'relation':
      return invalidParameter('field', `'${failure.written}' is a relation: :${route} takes one of its fields (${failure.written}.${failure.example ?? 'field'}).`)
    case 'to-many':
      return invalidParameter('field', `'${failure.written}' is a to-many relation: :${route} follows to-one relations only.`)
    case 'too-deep':
      return invalidParameter('field', `'${name}' follows more than ${MAX_HOPS} relations: :${route} takes a field at most two relations away (customer.region.name).`)
  }
}

function aggregateRows (access: AccessPlan, accessOf: AccessOf, input: AggregateInput, services: PlanServices, field: AggregateField): AggregateRows {
  const filterText = textParameter('filter', input.filter)
  return {
    model: access.model,
    scope: readScope(access, parseShowDeleted(access.model, input.show_deleted)),
    filter: planFilter(filterText, access, accessOf, services.checks, MAX_FILTER_QUERY),
    filterText,
    name: field.name,
    field: field.field,
    via: attachHops(field.via, accessOf),
  }
}

export interface AggregateInput {
  readonly field?: unknown
  readonly filter?: unknown
  readonly show_deleted?: unknown
}

export interface FacetsInput extends AggregateInput { readonly limit?: unknown }

export function planFacets (input: FacetsInput, access: AccessPlan, services: PlanServices, accessOf: AccessOf): FacetsPlan {
  const field = aggregateField(access.query, callerGraph(accessOf), input.field, 'facets', COUNTABLE, 'count values of')
  return { kind: 'facets', ...aggregateRows(access, accessOf, input, services, field), limit: count('limit', input.limit, FACETS_LIMIT) }
}

export interface HistogramInput extends AggregateInput { readonly buckets?: unknown }

export function planHistogram (input: HistogramInput, access: AccessPlan, services: PlanServices, accessOf: AccessOf): HistogramPlan {
  const field = aggregateField(access.query, callerGraph(accessOf), input.field, 'histogram', NUMERIC, 'make a histogram of')
  return { kind: 'histogram', ...aggregateRows(access, accessOf, input, services, field), buckets: count('buckets', input.buckets, HISTOGRAM_BUCKETS) }
}

export interface SeriesInput extends AggregateInput {
  readonly range?: unknown
  readonly from?: unknown
  readonly to?: unknown
  readonly granularity?: unknown
  readonly time_zone?: unknown
}

/** An IANA zone name, as both ICU and PostgreSQL know it; offsets like `+02:00` are refused (PostgreSQL reads POSIX offsets inverted). */
function parseTimeZone (value: unknown): string {
  const zone = once('time_zone', value)
  if (zone === undefined) return 'UTC'
  let known = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(zone) && zone.length <= 64
  try {
    if (known) new Intl.DateTimeFormat('en', { timeZone: zone }).format(0)
  } catch {
    known = false
  }
  if (!known) invalidParameter('time_zone', `time_zone '${zone}' is not an IANA time zone name such as Europe/Berlin or UTC.`)
  return zone
}

// Fractions of a second as filters take them (up to 100 digits; PostgreSQL rounds to microseconds).
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,100})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/

/** An ISO 8601 date or date-time; checked here so PostgreSQL never sees a malformed one. */
function parseInstant (parameter: 'from' | 'to', text: string): SeriesInstant & { readonly ms: number } {
  const match = ISO_INSTANT.exec(text)
  const [year, month, day, hour, minute, second] = (match?.slice(1, 7) ?? []).map((part) => Number(part ?? 0))
  const valid = match !== null && month! >= 1 && month! <= 12 && day! >= 1 && day! <= new Date(Date.UTC(year!, month!, 0)).getUTCDate() &&
    hour! <= 23 && minute! <= 59 && second! <= 59 && year! >= 1
  if (!valid) invalidParameter(parameter, `${parameter} must be an ISO 8601 date or date-time, such as 2026-03-01 or 2026-03-01T08:00:00Z.`)
  const offset = match![7]
  const local = offset === undefined
  // For the bucket bound only: wall time read as UTC is off by at most the zone's offset.
  const ms = Date.parse(local ? `${text.slice(0, 10)}T${text.slice(11) || '00:00'}Z` : text.replace(' ', 'T'))
  return { text, local, ms: Number.isNaN(ms) ? Date.UTC(year!, month! - 1, day!) : ms }
}

/** The granularity a span reads best in when none is asked for: a few dozen to a few hundred buckets. */
export function granularityFor (spanMs: number): Granularity {
  if (spanMs <= 3 * 86_400_000) return 'hour'
  if (spanMs <= 92 * 86_400_000) return 'day'
  if (spanMs <= 3 * 366 * 86_400_000) return 'month'
  return 'year'
}

/** Refuses a window that certainly makes more than MAX_SERIES_BUCKETS buckets. */
export function checkBucketCount (spanMs: number, granularity: Granularity): void {
  if (spanMs / LONGEST_MS[granularity] > MAX_SERIES_BUCKETS + 1) {
    invalidParameter('granularity', `This series would have more than ${MAX_SERIES_BUCKETS} buckets of ${granularity === 'hour' ? 'an' : 'a'} ${granularity}: choose a coarser granularity or a shorter range.`)
  }
}

export function planSeries (input: SeriesInput, access: AccessPlan, services: PlanServices, accessOf: AccessOf): SeriesPlan {
  const field = aggregateField(access.query, callerGraph(accessOf), input.field, 'series', TEMPORAL, 'count over time')
  const timeZone = parseTimeZone(input.time_zone)
  const asked = once('granularity', input.granularity)
  if (asked !== undefined && !(GRANULARITIES as readonly string[]).includes(asked)) {
    invalidParameter('granularity', `granularity must be one of ${GRANULARITIES.join(', ')}.`)
  }
  let granularity = asked as Granularity | undefined
  if (granularity === 'hour' && field.field.type === 'date') invalidParameter('granularity', `'${field.name}' is a date field: its buckets are a day or longer.`)
  const range = once('range', input.range)
  const from = once('from', input.from)
  const to = once('to', input.to)
  let window: SeriesWindow
  if (from !== undefined || to !== undefined) {
    if (range !== undefined) invalidParameter('range', 'Send range or from and to, not both.')
    if (from === undefined || to === undefined) invalidParameter(from === undefined ? 'from' : 'to', 'from and to go together: the series counts from `from` (inclusive) to `to` (exclusive).')
    const start = parseInstant('from', from)
    const end = parseInstant('to', to)
    if (start.local === end.local && end.ms <= start.ms) invalidParameter('to', 'to must be later than from.')
    granularity ??= granularityFor(end.ms - start.ms)
    checkBucketCount(end.ms - start.ms, granularity)
    window = { kind: 'between', from: { text: start.text, local: start.local }, to: { text: end.text, local: end.local } }
  } else {
    const chosen = range ?? '30d'
    if (!(RANGES as readonly string[]).includes(chosen)) invalidParameter('range', `range must be one of ${RANGES.join(', ')} (or give from and to).`)
    if (chosen === 'all') window = { kind: 'all' }
    else {
      const span = RANGE_MS[chosen as Exclude<SeriesRange, 'all'>]
      granularity ??= granularityFor(span)
      checkBucketCount(span, granularity)
      window = { kind: 'range', range: chosen as Exclude<SeriesRange, 'all'> }
    }
  }
  if (granularity === 'hour' && field.field.type === 'date') granularity = 'day'
  return { kind: 'series', ...aggregateRows(access, accessOf, input, services, field), granularity, timeZone, window }
}
