// Runs read plans on the read-only pool and shapes the list and seek envelopes. A get is one
// statement; a seek is one; a list is one statement, plus, at most once per filter (and caller,
// where the caller sees only some rows) per 30 s, the planner's figure for a large set.
// `total_size_estimate` is exact for free when the first page holds everything. Otherwise it comes
// from a count of the filtered rows the caller may see that stops at ESTIMATE_COUNT_CAP, made by a
// subquery of the page's own statement (no round trip of its own): exact below the cap. At the
// cap, where every caller sees every row, the planner's estimate is asked for and the larger of
// the two kept; where a row filter or a tenant narrows the caller's rows, table-wide statistics
// would reveal rows of others (a value frequent in another user's rows gives a larger estimate),
// so it stays the count: a lower bound. Counting first also spares small, young tables the
// planner's worst guesses (statistics taken while a table was empty made 15 rows estimate as 1).
// Where counts of the same rows keep reaching the cap (a filter value new on every request), a
// sample of the caller's rows estimates instead, with no count at all (./samples.ts).
import { problem, recordNotFound } from '../problems.js'
import { isPgError } from '../db/pg-errors.js'
import { rows, type Queryable } from '../db/query.js'
import type { Pool } from '../db/pool.js'
import { compileCount, compileEstimate, compileGet, compileList } from '../sql/read.js'
import type { GetPlan, ListPlan } from '../plan/types.js'
import { narrowed } from '../plan/read.js'
import type { PageDirection, PageTokens } from '../query/page-token.js'
import type { BoundedCache } from '../cache.js'
import type { StageTimes } from '../timing.js'
import { rowPermissions } from './permissions.js'
import type { Row } from '../serialize/record.js'
import type { Etags } from '../serialize/etag.js'
import { listJson, recordBuilder, recordJson, seekJson } from '../serialize/json.js'
import type { RowSamples } from './samples.js'
import { guardWarnings, type ListGuard } from './guard-view.js'

export interface ListResult {
  /** The page as JSON: `items`, `next_page_token`, `total_size_estimate`, and `total_size` on count=exact. */
  readonly json: string
  readonly warnings: readonly string[]
}

const ESTIMATE_TTL_MS = 30_000
/** Where the estimate counts the caller's rows, it counts this many at most. */
export const ESTIMATE_COUNT_CAP = 1_000

export interface Estimate { readonly rows: number, readonly at: number }

/** What reads need of the app. */
export interface ReadServices {
  readonly pageTokens: PageTokens
  readonly etags: Etags
  /** The planner's estimates by list and caller, each good for 30 s. */
  readonly estimates: BoundedCache<Estimate>
  /** Samples of callers' rows, which estimate lists whose filter values keep changing. */
  readonly samples: RowSamples
}

/** The list's estimate while it is fresh (30 s), else undefined. */
function cachedEstimate (plan: ListPlan, estimates: BoundedCache<Estimate>): number | undefined {
  const cached = estimates.get(plan.estimateKey)
  return cached !== undefined && Date.now() - cached.at < ESTIMATE_TTL_MS ? cached.rows : undefined
}

/**
 * The estimate from the caller's rows counted up to the cap (`counted`, from the page's own
 * statement, or counted now): exact below the cap; above it, the planner's figure where every
 * caller sees every row, else the cap, a lower bound.
 */
async function settleEstimate (db: Queryable, plan: ListPlan, estimates: BoundedCache<Estimate>, counted: number | undefined): Promise<number> {
  if (counted === undefined) {
    const [row] = await rows<{ total: number }>(db, compileCount(plan, ESTIMATE_COUNT_CAP))
    counted = row?.total ?? 0
  }
  let found = counted
  if (counted >= ESTIMATE_COUNT_CAP && !narrowed(plan.model, plan.scope)) {
    const [explained] = await rows<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(db, compileEstimate(plan))
    found = Math.max(counted, explained?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0)
  }
  estimates.set(plan.estimateKey, { rows: found, at: Date.now() })
  return found
}

/**
 * A data error raised while a list runs comes from a value of its filter or page token that the
 * checker let through (it catches what it can): the caller's filter is what to fix, not a record.
 */
export function asFilterProblem (err: unknown, plan: { readonly filterText: string }): unknown {
  if (!isPgError(err) || !err.code.startsWith('22')) return err
  const detail = 'A value in the filter is out of range or malformed for the database.'
  return problem('invalid-filter', detail, { parameter: 'filter', errors: [{ code: 'invalid-value', message: detail, span: { start: 0, end: plan.filterText.length } }] })
}

export interface ReadRecord {
  readonly json: string
  readonly etag: string
}

/** `times`: the request's Server-Timing stages, when it is timed. */
export async function readOne (db: Queryable, plan: GetPlan, services: ReadServices, times?: StageTimes): Promise<ReadRecord> {
  times?.mark()
  const [found] = await rows<Row>(db, compileGet(plan))
  times?.lap('db')
  if (found === undefined) throw recordNotFound(plan.model.name)
  const row = plan.scope.present === undefined ? found : plan.scope.present(found)
  const etag = services.etags.of(plan.model, plan.readable)(row)
  const permissions = plan.permissions === undefined ? undefined : await rowPermissions(plan.model, plan.permissions)(row)
  const json = recordJson(plan.select, row, etag, permissions?.json)
  times?.lap('serialize')
  return { etag, json }
}

/** A page's records, as objects for JSON.stringify. */
async function pageRecords (plan: ListPlan, page: readonly Row[], services: ReadServices): Promise<Row[]> {
  // Worked out once per page, so the loop does only per-row work; permissions decided by rows
  // come back as one of the plan's four forms, so a page of them costs no await per row.
  const build = recordBuilder(plan.select)
  const etag = services.etags.of(plan.model, plan.readable)
  const permissionsOf = plan.permissions === undefined ? undefined : rowPermissions(plan.model, plan.permissions)
  const present = plan.scope.present
  const records: Row[] = []
  for (const found of page) {
    const row = present === undefined ? found : present(found)
    const permissions = permissionsOf?.(row)
    records.push(build(row, etag(row), (permissions instanceof Promise ? await permissions : permissions)?.object))
  }
  return records
}

/** `times`: the request's Server-Timing stages, when it is timed. */
export async function readList (db: Pool, plan: ListPlan, services: ReadServices, guards: readonly ListGuard[], times?: StageTimes): Promise<ListResult> {
  times?.mark()
  const warnings = await guardWarnings(guards, plan, db)
  // A list without a fresh estimate, and whose filter a sample of the caller's rows cannot
  // estimate, counts the caller's rows in its own statement.
  const estimating = plan.kind === 'list' && !plan.count
  const cached = estimating ? cachedEstimate(plan, services.estimates) : undefined
  const sampled = estimating && cached === undefined ? services.samples.estimate(plan) : undefined
  const counting = estimating && cached === undefined && sampled === undefined
  const found = await rows<Row>(db, compileList(plan, counting ? ESTIMATE_COUNT_CAP : undefined)).catch((err: unknown) => { throw asFilterProblem(err, plan) })
  times?.lap('db')
  const hasMore = found.length > plan.pageSize
  const page = hasMore ? found.slice(0, plan.pageSize) : found
  // A backward page was read in the reversed order, nearest row first.
  const backward = plan.cursor?.direction === 'backward'
  if (backward) page.reverse()
  const records = await pageRecords(plan, page, services)
  times?.lap('serialize')
  // Tokens read on from the page's own rows: forward from its last, backward from its first. Rows
  // follow a backward page (the one its token came from), and precede a page that a forward token
  // or a seek position started; an empty page has no row to read on from.
  const rowsAfter = backward ? page.length > 0 : hasMore
  const rowsBefore = backward ? hasMore : (plan.cursor !== undefined || plan.position > 0) && page.length > 0
  const tokenFrom = (row: Row | undefined, direction: PageDirection): string =>
    row === undefined ? '' : services.pageTokens.encode(plan.tokenBinding, { direction, values: orderValues(plan, row) })
  const nextPageToken = rowsAfter ? tokenFrom(page.at(-1), 'forward') : ''
  times?.lap('serialize')
  if (plan.kind === 'seek') return { json: seekJson(records, nextPageToken, rowsBefore ? tokenFrom(page[0], 'backward') : ''), warnings }
  const size = page.length
  // A page with more after it proves one more row than it holds, whatever a 30 s old estimate says.
  let estimated = size
  if (hasMore || plan.cursor !== undefined) {
    // A sampled estimate is not kept: its filter text is seldom seen again, and the sample answers as fast.
    let rowsEstimate = cached ?? sampled
    if (rowsEstimate === undefined) {
      const counted = counting ? found[0]?.__estimate as number | undefined : undefined
      rowsEstimate = await settleEstimate(db, plan, services.estimates, counted).catch((err: unknown) => { throw asFilterProblem(err, plan) })
      if (rowsEstimate >= ESTIMATE_COUNT_CAP) services.samples.countedToCap(plan, db)
    }
    estimated = Math.max(rowsEstimate, hasMore ? size + 1 : size)
  }
  let total: number | undefined
  if (plan.count) {
    const [counted] = await rows<{ total: number }>(db, compileCount(plan))
    total = counted!.total
    estimated = total
  }
  times?.lap('db')
  const json = listJson(records, nextPageToken, estimated, total)
  times?.lap('serialize')
  return { json, warnings }
}

/** A row's values of the order's fields, as text: read from the record, or from the extra columns compileList adds. */
function orderValues (plan: ListPlan, row: Row): Array<string | null> {
  const fetched = plan.fetch.fields
  return plan.order.map((term, i) => {
    const value = fetched.includes(term.field) ? row[term.field.name] : row[`__order_${i}`]
    return value === null || value === undefined ? null : String(value)
  })
}
