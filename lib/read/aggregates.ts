// Runs aggregate plans on the read-only pool (each is one statement, so one read-only transaction
// under the statement timeout; a range=all series reads its span first) and writes their JSON
// (../serialize/envelopes.ts).
import { rows, type Queryable } from '../db/query.js'
import { isPgError } from '../db/pg-errors.js'
import { invalidParameter } from '../query/params.js'
import { compileFacets, compileHistogram, compileSeries, compileSeriesSpan } from '../sql/aggregates.js'
import { checkBucketCount, granularityFor, MAX_SERIES_BUCKETS, type FacetsPlan, type Granularity, type HistogramPlan, type SeriesPlan } from '../plan/aggregates.js'
import type { Sql } from '../sql/sql.js'
import { asFilterProblem } from './execute.js'
import { facetsJson, histogramJson, seriesJson } from '../serialize/envelopes.js'

async function aggregateRows<R extends object> (db: Queryable, statement: Sql, plan: { readonly filterText: string }): Promise<R[]> {
  return await rows<R & Record<string, unknown>>(db, statement).catch((err: unknown) => {
    // The zone passed ICU's check; a PostgreSQL that does not know it says 22023 about it.
    if (isPgError(err) && err.code === '22023' && /time zone/i.test(String((err as { message?: unknown }).message))) {
      invalidParameter('time_zone', 'This time zone is not known to the database: use an IANA name such as Europe/Berlin.')
    }
    throw asFilterProblem(err, plan)
  })
}

/** `{ field, facets: [{ value, count }] }`. */
export async function readFacets (db: Queryable, plan: FacetsPlan): Promise<string> {
  const found = await aggregateRows<{ value: unknown, count: string }>(db, compileFacets(plan), plan)
  return facetsJson(plan.name, found.map((row) => ({ value: row.value, count: Number(row.count) })))
}

/** `{ field, granularity, time_zone, from, to, buckets: [{ start, count }] }`; `from` and `to` are null for range=all without rows. */
export async function readSeries (db: Queryable, plan: SeriesPlan): Promise<string> {
  let resolved: SeriesPlan & { granularity: Granularity } | undefined
  if (plan.window.kind === 'all') {
    const [span] = await aggregateRows<{ first: string | null, last: string | null }>(db, compileSeriesSpan(plan), plan)
    if (span?.first != null && span.last != null) {
      const granularity = plan.granularity ?? granularityFor(Date.parse(span.last) - Date.parse(span.first))
      checkBucketCount(Date.parse(span.last) - Date.parse(span.first), granularity)
      resolved = { ...plan, granularity, window: { kind: 'span', first: span.first, last: span.last } }
    }
  } else if (plan.granularity !== undefined) {
    resolved = { ...plan, granularity: plan.granularity }
  }
  if (resolved === undefined) return seriesJson(plan.name, plan.granularity ?? null, plan.timeZone, null, null, [])
  const found = await aggregateRows<{ from: string, to: string, start: string | null, count: string }>(db, compileSeries(resolved), plan)
  if (found.length > MAX_SERIES_BUCKETS) checkBucketCount(Infinity, resolved.granularity)
  const first = found[0]
  const buckets = found.filter((row) => row.start !== null).map((row) => ({ start: row.start!, count: Number(row.count) }))
  return seriesJson(plan.name, resolved.granularity, plan.timeZone, first?.from ?? null, first?.to ?? null, buckets)
}

/** `{ field, min, max, buckets: [{ start, end, count }], nulls }`. */
export async function readHistogram (db: Queryable, plan: HistogramPlan): Promise<string> {
  const found = await aggregateRows<{ min: unknown, max: unknown, nulls: string, bucket: number | null, start: unknown, end: unknown, count: string }>(db, compileHistogram(plan), plan)
  const first = found[0]
  const buckets = found.filter((row) => row.bucket !== null).map((row) => ({ start: row.start, end: row.end, count: Number(row.count) }))
  return histogramJson(plan.name, first?.min ?? null, first?.max ?? null, buckets, Number(first?.nulls ?? 0))
}
