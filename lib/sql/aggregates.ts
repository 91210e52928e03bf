// Aggregate plans → SQL. Each counts the rows a list with the same filter would return: the same
// conditions (listConditions: tenant, soft delete, row filter, filter), so nothing outside the
// caller's rows is ever counted, and only the field asked for (one the caller may read) is read.
// A related record's field (`customer.country`) is a lateral's column (./path.ts) beside the table.
import { sql, type Sql } from './sql.js'
import { jsonCast, qualifiedColumnOf } from './record.js'
import { listConditions } from './read.js'
import { pathValue, type PathValue } from './path.js'
import { MAX_SERIES_BUCKETS, type AggregateRows, type FacetsPlan, type Granularity, type HistogramPlan, type SeriesInstant, type SeriesPlan } from '../plan/aggregates.js'

function where (rows: AggregateRows, ...more: Sql[]): Sql {
  const conditions = [...listConditions(rows), ...more]
  return conditions.length === 0 ? sql.empty : sql` WHERE ${sql.join(conditions, sql` AND `)}`
}

/**
 * The value an aggregate counts by, and what follows the table in its FROM clause to bring it: the
 * field's column, or a path's lateral (NULL where the related row is missing or not the caller's).
 */
function countedValue (plan: AggregateRows): PathValue {
  if (plan.via.length === 0) return { join: sql.empty, value: qualifiedColumnOf(plan.model, plan.field) }
  return pathValue(plan.model, plan.via, plan.field, '__a')
}

/** Values per count, most frequent first, then by value; NULL is a value too. */
export function compileFacets (plan: FacetsPlan): Sql {
  const { join, value: column } = countedValue(plan)
  return sql`SELECT ${column}${jsonCast(plan.field)} AS "value", count(*)::int8 AS "count" FROM ${plan.model.table}${join}${where(plan)} GROUP BY ${column} ORDER BY count(*) DESC, ${column} ASC LIMIT ${plan.limit}`
}

const RANGE_INTERVALS = { '7d': '7 days', '30d': '30 days', '90d': '90 days', '1y': '1 year' } as const

function stepOf (granularity: Granularity): string {
  return granularity === 'quarter' ? '3 months' : `1 ${granularity}`
}

/**
 * The series' clock: bucket starts are local in the zone (a Berlin day starts at local midnight,
 * 23 or 25 hours after the one before across DST), and a date field's value is its local midnight.
 * Calendar steps (a day and longer) are taken on the zone's wall clock (`AT TIME ZONE` to local
 * time, add, back), which is what PostgreSQL 16's date_add(…, zone) does; an hour is an hour of
 * elapsed time, as date_add takes it too, so the night clocks go back has both its 02:00 hours.
 */
function seriesClock (plan: SeriesPlan & { granularity: Granularity }) {
  const zone = sql`${plan.timeZone}::text`
  const { join, value: column } = countedValue(plan)
  const step = sql`${stepOf(plan.granularity)}::interval`
  /** An instant as wall time in the zone, or wall time in the zone as an instant: AT TIME ZONE goes either way. */
  const inZone = (value: Sql): Sql => sql`(${value} AT TIME ZONE ${zone})`
  /** `instant` moved on the zone's calendar: 30 days back from 23:10 is 23:10, DST or not. */
  const onCalendar = (instant: Sql, move: Sql): Sql => inZone(sql`(${inZone(instant)} ${move})`)
  const trunc = (instant: Sql): Sql => sql`date_trunc(${plan.granularity}::text, ${instant}, ${zone})`
  return {
    join,
    value: plan.field.type === 'date' ? inZone(sql`${column}::timestamp`) : column,
    trunc,
    next: (instant: Sql): Sql => plan.granularity === 'hour' ? sql`(${instant} + ${step})` : onCalendar(instant, sql`+ ${step}`),
    back: (instant: Sql, interval: string): Sql => onCalendar(instant, sql`- ${interval}::interval`),
    instant: (given: SeriesInstant): Sql => given.local ? inZone(sql`${given.text}::timestamp`) : sql`${given.text}::timestamptz`,
    /**
     * The bucket starts from the one holding `lower` to the last before `upper`. A calendar
     * bucket's start is its local start made an instant, as date_trunc makes a row's, so the two
     * meet even where a DST change skips a local midnight. The local series runs a step past
     * `upper`, since a clock set back may read less at `upper` than at the last start before it.
     */
    starts: (lower: Sql, upper: Sql): Sql => plan.granularity === 'hour'
      ? sql`SELECT "start" FROM generate_series(${trunc(lower)}, ${upper} - interval '1 microsecond', ${step}) AS "series" ("start")`
      : sql`SELECT ${inZone(sql`"local"`)} AS "start" FROM generate_series(date_trunc(${plan.granularity}::text, ${inZone(lower)}), (${inZone(upper)} + ${step}), ${step}) AS "series" ("local") WHERE ${inZone(sql`"local"`)} < ${upper}`,
  }
}

/**
 * One row per bucket from the first to the last (empty ones counted 0), each with the window it
 * counted (`from` inclusive, `to` exclusive). At most MAX_SERIES_BUCKETS + 1 rows: one more says
 * the window was too long for the granularity. A range=all series is planned as its data's span.
 */
export function compileSeries (plan: SeriesPlan & { granularity: Granularity }): Sql {
  const clock = seriesClock(plan)
  const { window } = plan
  let lower: Sql
  let upper: Sql
  switch (window.kind) {
    case 'range':
      // Days back on the zone's calendar: 30 days before 23:10 on the first day after clocks
      // went back is 23:10 local, not 00:10 of the next day, so a range's bucket count is fixed.
      lower = clock.trunc(clock.back(sql`now()`, RANGE_INTERVALS[window.range]))
      upper = clock.next(clock.trunc(sql`now()`))
      break
    case 'span':
      lower = clock.trunc(sql`${window.first}::timestamptz`)
      upper = clock.next(clock.trunc(sql`${window.last}::timestamptz`))
      break
    case 'between':
      lower = clock.instant(window.from)
      upper = clock.instant(window.to)
      break
    case 'all':
      throw new Error('compileSeries: a range=all series is planned as its span (compileSeriesSpan first)')
  }
  // The bounds stand in the WHERE clause themselves (not read from the CTE), so an index on the field serves them.
  const counted = sql`SELECT ${clock.trunc(clock.value)} AS "start", count(*) AS "count" FROM ${plan.model.table}${clock.join}${where(plan, sql`${clock.value} >= ${lower}`, sql`${clock.value} < ${upper}`)} GROUP BY 1`
  return sql.join([
    sql`WITH "bounds" AS (SELECT ${lower} AS "lower", ${upper} AS "upper"), "counted" AS (${counted}) `,
    sql`SELECT "bounds"."lower" AS "from", "bounds"."upper" AS "to", "series"."start" AS "start", coalesce("counted"."count", 0)::int8 AS "count" `,
    sql`FROM "bounds" LEFT JOIN LATERAL (${clock.starts(sql`"bounds"."lower"`, sql`"bounds"."upper"`)}) AS "series" ON true `,
    sql`LEFT JOIN "counted" ON "counted"."start" = "series"."start" ORDER BY "series"."start" LIMIT ${MAX_SERIES_BUCKETS + 1}`,
  ], sql.empty)
}

/** The first and last instant of the caller's rows (range=all), NULL when there are none. */
export function compileSeriesSpan (plan: SeriesPlan): Sql {
  const { join, value: column } = countedValue(plan)
  const value = plan.field.type === 'date' ? sql`(${column}::timestamp AT TIME ZONE ${plan.timeZone}::text)` : column
  return sql`SELECT min(${value}) AS "first", max(${value}) AS "last" FROM ${plan.model.table}${join}${where(plan)}`
}

/**
 * Equal-width buckets between the filtered minimum and maximum (the maximum falls in the last
 * bucket), and the rows without a value apart. integer and number fields are measured as float8
 * (JSON numbers), bigint and decimal as numeric (exact, JSON strings). All values equal make one
 * bucket; no value at all makes none.
 */
export function compileHistogram (plan: HistogramPlan): Sql {
  const { join, value: column } = countedValue(plan)
  const { type } = plan.field
  const float = type === 'integer' || type === 'number'
  const value = float ? sql`${column}::float8` : sql`${column}::numeric`
  // float8 and numeric columns may hold NaN and ±Infinity, which have no place on an axis: they
  // are counted apart with the nulls.
  const placed = type === 'number' || type === 'decimal'
    ? sql`${column} IS NOT NULL AND ${column} NOT IN ('NaN', 'Infinity', '-Infinity')`
    : sql`${column} IS NOT NULL`
  const n = sql`${plan.buckets}::int`
  // The k-th edge of n, lo + (hi - lo) * k / n. In float8 the width of -1.7e308..1.7e308 would
  // overflow, so half of it is scaled by 2k / n. numeric division carries 16 or more digits:
  // 40.0000000000000000 reads better as 40.
  const edge = (k: Sql): Sql => float
    ? sql`"bounds"."lo" + ("bounds"."hi" / 2 - "bounds"."lo" / 2) * (2.0 * ${k} / ${n})`
    : sql`trim_scale("bounds"."lo" + ("bounds"."hi" - "bounds"."lo") * ${k} / ${n})`
  const bounds = sql`SELECT min(${value}) FILTER (WHERE ${placed}) AS "lo", max(${value}) FILTER (WHERE ${placed}) AS "hi", count(*) FILTER (WHERE NOT (${placed})) AS "nulls" FROM ${plan.model.table}${join}${where(plan)}`
  // Values are placed by the very edges the answer shows (width_bucket over them), so a bucket
  // holds start <= value < end even where floats cannot tell -0.5 from 0 at the range's scale.
  const cuts = sql`SELECT ARRAY(SELECT ${edge(sql`"k"`)} FROM generate_series(1, ${n} - 1) AS "k") AS "edges" FROM "bounds"`
  const bucketOf = sql`CASE WHEN "bounds"."hi" = "bounds"."lo" THEN 1 ELSE width_bucket(${value}, "cuts"."edges") + 1 END`
  const counted = sql`SELECT ${bucketOf} AS "bucket", count(*) AS "count" FROM ${plan.model.table}${join} CROSS JOIN "bounds" CROSS JOIN "cuts"${where(plan, placed)} GROUP BY 1`
  const low = float ? sql`"bounds"."lo"` : sql`trim_scale("bounds"."lo")`
  const high = float ? sql`"bounds"."hi"` : sql`trim_scale("bounds"."hi")`
  return sql.join([
    sql`WITH "bounds" AS (${bounds}), "cuts" AS (${cuts}), "counted" AS (${counted}) `,
    sql`SELECT "bounds"."lo" AS "min", "bounds"."hi" AS "max", "bounds"."nulls"::int8 AS "nulls", "b"."bucket" AS "bucket", `,
    sql`CASE WHEN "b"."bucket" = 1 THEN ${low} ELSE "cuts"."edges"["b"."bucket" - 1] END AS "start", `,
    sql`CASE WHEN "b"."bucket" = ${n} OR "bounds"."hi" = "bounds"."lo" THEN ${high} ELSE "cuts"."edges"["b"."bucket"] END AS "end", `,
    sql`coalesce("counted"."count", 0)::int8 AS "count" `,
    sql`FROM "bounds" CROSS JOIN "cuts" LEFT JOIN LATERAL generate_series(1, CASE WHEN "bounds"."hi" IS NULL THEN 0 WHEN "bounds"."hi" = "bounds"."lo" THEN 1 ELSE ${n} END) AS "b" ("bucket") ON true `,
    sql`LEFT JOIN "counted" ON "counted"."bucket" = "b"."bucket" ORDER BY "b"."bucket"`,
  ], sql.empty)
}
