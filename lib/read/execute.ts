// Runs read plans on the read-only pool: the database phase of a read, which ./answer.ts turns into
// JSON with no database work of its own. A get is one statement; a seek is one; a list is one
// statement, plus what its estimate may need (./estimate/) and a count on count=exact.
import { problem, recordNotFound } from '../problems.js'
import { isPgError } from '../db/pg-errors.js'
import { rows, type Queryable } from '../db/query.js'
import type { Pool } from '../db/pool.js'
import { compileCount, compileGet, compileList } from '../sql/read.js'
import type { GetPlan, ListPlan } from '../plan/types.js'
import type { PageTokens } from '../query/page-token.js'
import type { Row } from '../serialize/record.js'
import type { Etags } from '../serialize/etag.js'
import { estimateRows, startEstimate, type EstimateServices } from './estimate/index.js'
import { runListGuards, type ListGuard } from './guard-view.js'
import type { TraversalSides } from './sides.js'

/** What reads need of the app. */
export interface ReadServices extends EstimateServices {
  readonly pageTokens: PageTokens
  readonly etags: Etags
  /** The sides traversed filters were read from, per list and caller. */
  readonly sides: TraversalSides
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

/** The record a get reads, as read; a 404 problem when the caller has none by that key. */
export async function readRecord (db: Queryable, plan: GetPlan): Promise<Row> {
  const [found] = await rows<Row>(db, compileGet(plan))
  if (found === undefined) throw recordNotFound(plan.model.name)
  return found
}

/** A page as read, with its figures: all a page's answer needs, with no statement left to run. */
export interface PageRead {
  /** The page's rows in the order's direction (a backward page, read the other way, turned round). */
  readonly rows: Row[]
  /** Whether rows follow the page in the direction it was read (its statement read one more). */
  readonly hasMore: boolean
  /** A list's total_size_estimate (on count=exact, the count); a seek has none: 0. */
  readonly estimate: number
  /** The count of count=exact, else undefined. */
  readonly total: number | undefined
  /** The list guards' warnings, for the `X-Service-Warning` header. */
  readonly warnings: readonly string[]
}

/** A list or seek page's database work: the guards, the page's statement, the estimate and count=exact. */
export async function readPage (db: Pool, plan: ListPlan, services: ReadServices, guards: readonly ListGuard[]): Promise<PageRead> {
  const { warnings, plannedRows } = await runListGuards(guards, plan, db)
  const start = plan.kind === 'list' && !plan.count ? startEstimate(plan, services, plannedRows) : undefined
  let found: Row[]
  let estimate = 0
  try {
    const side = services.sides.recall(plan)
    found = await rows<Row>(db, compileList(plan, start?.countUpTo, side))
    if (side === undefined) services.sides.learn(plan, found)
    if (start !== undefined) estimate = await estimateRows(db, plan, services, start, found)
  } catch (err) {
    throw asFilterProblem(err, plan)
  }
  const hasMore = found.length > plan.pageSize
  let total: number | undefined
  if (plan.count) {
    const [counted] = await rows<{ total: number }>(db, compileCount(plan))
    total = counted!.total
    estimate = total
  }
  const page = hasMore ? found.slice(0, plan.pageSize) : found
  // A backward page was read in the reversed order, nearest row first.
  if (plan.cursor?.direction === 'backward') page.reverse()
  return { rows: page, hasMore, estimate, total, warnings }
}
