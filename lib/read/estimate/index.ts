// total_size_estimate of a list page. It is exact for free when the first page holds everything.
// Otherwise it comes from a count of the filtered rows the caller may see that stops at
// ESTIMATE_COUNT_CAP, made by a subquery of the page's own statement (no round trip of its own):
// exact below the cap. At the cap, where every caller sees every row, the planner's estimate is
// asked for and the larger of the two kept; where a row filter or a tenant narrows the caller's
// rows, table-wide statistics would reveal rows of others (a value frequent in another user's rows
// gives a larger estimate), so it stays the count: a lower bound. Counting first also spares
// small, young tables the planner's worst guesses (statistics taken while a table was empty made
// 15 rows estimate as 1). What was settled so is kept per filter (and caller, where the caller
// sees only some rows) for 30 s. Where counts of the same rows keep reaching the cap (a filter
// value new on every request), a sample of the caller's rows estimates instead, with no count at
// all (./samples.ts).
//
// The count rides in the page's statement, so the policy has two steps around it: startEstimate
// before (a fresh figure, or the cap for compileList to count up to), estimateRows after.
import type { BoundedCache } from '../../cache.js'
import { rows, type Queryable } from '../../db/query.js'
import { narrowed } from '../../plan/read.js'
import type { ListPlan } from '../../plan/types.js'
import { traverses } from '../../query/filter/checked.js'
import { compileCount } from '../../sql/read.js'
import type { Row } from '../../serialize/record.js'
import { plannedRows } from './planner.js'
import type { RowSamples } from './samples.js'

const ESTIMATE_TTL_MS = 30_000
/** Where the estimate counts the caller's rows, it counts this many at most. */
const ESTIMATE_COUNT_CAP = 1_000

export interface Estimate { readonly rows: number, readonly at: number }

/** What the estimate needs of the app. */
export interface EstimateServices {
  /** The planner's estimates by list and caller, each good for 30 s. */
  readonly estimates: BoundedCache<Estimate>
  /** Samples of callers' rows, which estimate lists whose filter values keep changing. */
  readonly samples: RowSamples
}

/**
 * The estimate's first step, before the page's statement: a fresh figure (`known`: cached, or from
 * a sample), or else `countUpTo`, the cap to which the statement counts the caller's rows.
 */
export interface EstimateStart {
  readonly known: number | undefined
  readonly countUpTo: number | undefined
}

const COUNT_IN_PAGE: EstimateStart = { known: undefined, countUpTo: ESTIMATE_COUNT_CAP }

export function startEstimate (plan: ListPlan, services: EstimateServices): EstimateStart {
  const cached = services.estimates.get(plan.estimateKey)
  if (cached !== undefined && Date.now() - cached.at < ESTIMATE_TTL_MS) return { known: cached.rows, countUpTo: undefined }
  // A sampled estimate is not kept: its filter text is seldom seen again, and the sample answers as fast.
  const sampled = services.samples.estimate(plan)
  return sampled === undefined ? COUNT_IN_PAGE : { known: sampled, countUpTo: undefined }
}

/**
 * The list page's total_size_estimate, once its statement (begun with `start`) read `found`: the
 * page's rows and one more when another page follows. Only an estimate not known at the start
 * may run statements (a count, the planner's figure) or start a sample in the background.
 */
export async function estimateRows (db: Queryable, plan: ListPlan, services: EstimateServices, start: EstimateStart, found: readonly Row[]): Promise<number> {
  const hasMore = found.length > plan.pageSize
  const size = hasMore ? plan.pageSize : found.length
  if (!hasMore && plan.cursor === undefined) return size
  let estimated = start.known
  if (estimated === undefined) {
    estimated = await settleEstimate(db, plan, services.estimates, found[0]?.__estimate as number | undefined)
    if (estimated >= ESTIMATE_COUNT_CAP) services.samples.countedToCap(plan, db)
  }
  // A page with more after it proves one more row than it holds, whatever a 30 s old estimate says.
  return Math.max(estimated, hasMore ? size + 1 : size)
}

/**
 * The estimate from the caller's rows counted up to the cap (`counted`, from the page's own
 * statement, or counted now): exact below the cap; above it, the planner's figure where every
 * caller sees every row, else the cap, a lower bound. Kept for 30 s.
 */
async function settleEstimate (db: Queryable, plan: ListPlan, estimates: BoundedCache<Estimate>, counted: number | undefined): Promise<number> {
  if (counted === undefined) {
    const [row] = await rows<{ total: number }>(db, compileCount(plan, ESTIMATE_COUNT_CAP))
    counted = row?.total ?? 0
  }
  let found = counted
  // The planner's figure counts rows of every caller, related ones too: only for a caller who sees them all.
  if (counted >= ESTIMATE_COUNT_CAP && !narrowed(plan.model, plan.scope) && !traverses(plan.filter)) found = Math.max(counted, await plannedRows(db, plan))
  estimates.set(plan.estimateKey, { rows: found, at: Date.now() })
  return found
}
