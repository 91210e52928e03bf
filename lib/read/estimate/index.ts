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
// No page waits on a statement of the estimate's own, but a later page that read no row to carry
// the count (issue 45, docs/decisions.md "No warm-up tax"): the planner's figure is asked for once
// the page that counted to the cap is answered (unless a list guard's EXPLAIN of the same rows
// gave it before the page), and the pages after it say it (./settling.ts); an estimate past its
// 30 s still answers, for up to ESTIMATE_STALE_MS, while it is counted (and planned) again once
// the page is answered. So the policy has two steps around the page's
// statement: startEstimate before (a figure, or the cap for compileList to count up to),
// estimateRows after.
import type { BoundedCache } from '../../cache.js'
import { rows, type Queryable } from '../../db/query.js'
import { narrowed } from '../../plan/read.js'
import type { ListPlan } from '../../plan/types.js'
import { traverses } from '../../query/filter/checked.js'
import { compileCount } from '../../sql/read.js'
import type { Row } from '../../serialize/record.js'
import { plannedRows } from './planner.js'
import type { RowSamples } from './samples.js'
import type { EstimateSettling } from './settling.js'

const ESTIMATE_TTL_MS = 30_000
/** An estimate past ESTIMATE_TTL_MS answers up to this age, while it is settled again. */
const ESTIMATE_STALE_MS = 5 * 60_000
/** Where the estimate counts the caller's rows, it counts this many at most. */
const ESTIMATE_COUNT_CAP = 1_000

export interface Estimate {
  readonly rows: number
  readonly at: number
  /** A count at the cap whose planner's figure has not landed yet. */
  readonly waiting: boolean
}

/** What the estimate needs of the app. */
export interface EstimateServices {
  /** The estimates by list and caller, each good for 30 s. */
  readonly estimates: BoundedCache<Estimate>
  /** Samples of callers' rows, which estimate lists whose filter values keep changing. */
  readonly samples: RowSamples
  /** What an estimate settles after its page is answered. */
  readonly settling: EstimateSettling
}

/**
 * The estimate's first step, before the page's statement: a figure (`known`: cached, or from a
 * sample), or else `countUpTo`, the cap to which the statement counts the caller's rows.
 * `settle`: what of a known figure to settle once the page is answered, the planner's figure of a
 * count at the cap (`planned`) or, for one past its 30 s, the whole estimate again (`all`).
 */
export interface EstimateStart {
  readonly known: number | undefined
  readonly countUpTo: number | undefined
  readonly settle: 'planned' | 'all' | undefined
  /** The planner's figure a list guard's EXPLAIN of these filtered rows gave (lib/read/guard-view.ts): not asked for again. */
  readonly planned?: number | undefined
}

const COUNT_IN_PAGE: EstimateStart = { known: undefined, countUpTo: ESTIMATE_COUNT_CAP, settle: undefined }

/** `planned`: the planner's figure of the list's filtered rows, where a list guard has just had them explained. */
export function startEstimate (plan: ListPlan, services: EstimateServices, planned?: number): EstimateStart {
  const cached = services.estimates.get(plan.estimateKey)
  const age = cached === undefined ? Infinity : Date.now() - cached.at
  if (age < ESTIMATE_TTL_MS) return { known: cached!.rows, countUpTo: undefined, settle: cached!.waiting ? 'planned' : undefined }
  // A sampled estimate is not kept: its filter text is seldom seen again, and the sample answers as fast.
  const sampled = services.samples.estimate(plan)
  if (sampled !== undefined) return { known: sampled, countUpTo: undefined, settle: undefined }
  if (age < ESTIMATE_STALE_MS) return { known: cached!.rows, countUpTo: undefined, settle: 'all' }
  return planned === undefined ? COUNT_IN_PAGE : { ...COUNT_IN_PAGE, planned }
}

/**
 * The list page's total_size_estimate, once its statement (begun with `start`) read `found`: the
 * page's rows and one more when another page follows. Only an estimate not known at the start
 * may count now (where the statement read no row to carry the count); the rest is settled once
 * the page is answered.
 */
export async function estimateRows (db: Queryable, plan: ListPlan, services: EstimateServices, start: EstimateStart, found: readonly Row[]): Promise<number> {
  const hasMore = found.length > plan.pageSize
  const size = hasMore ? plan.pageSize : found.length
  if (!hasMore && plan.cursor === undefined) return size
  let estimated = start.known
  if (start.countUpTo !== undefined) {
    estimated = await countedRows(db, plan, found[0]?.__estimate as number | undefined)
    const planner = estimated >= ESTIMATE_COUNT_CAP && plannerMay(plan)
    // The page says its count, as every first page does. The next pages say the planner's figure:
    // at hand where a list guard's EXPLAIN gave it, else asked for once the page is answered.
    const settled = planner && start.planned !== undefined ? Math.max(estimated, start.planned) : undefined
    const waiting = planner && settled === undefined
    services.estimates.set(plan.estimateKey, { rows: settled ?? estimated, at: Date.now(), waiting })
    if (waiting) settleLater(db, plan, services, estimated)
    if (estimated >= ESTIMATE_COUNT_CAP) services.samples.countedToCap(plan, db)
  } else if (start.settle !== undefined) {
    settleLater(db, plan, services, start.settle === 'planned' ? estimated : undefined)
  }
  // A page with more after it proves one more row than it holds, whatever a 30 s old estimate says.
  return Math.max(estimated ?? 0, hasMore ? size + 1 : size)
}

/** The caller's rows counted up to the cap: by the page's own statement (`counted`), or now. */
async function countedRows (db: Queryable, plan: ListPlan, counted: number | undefined): Promise<number> {
  if (counted !== undefined) return counted
  const [row] = await rows<{ total: number }>(db, compileCount(plan, ESTIMATE_COUNT_CAP))
  return row?.total ?? 0
}

/** The planner's figure counts rows of every caller, related ones too: only for a caller who sees them all. */
function plannerMay (plan: ListPlan): boolean {
  return !narrowed(plan.model, plan.scope) && !traverses(plan.filter)
}

/**
 * The estimate settled once the page is answered: the caller's rows counted to the cap (unless
 * `counted` already holds them), and at the cap the planner's figure where the caller may have it.
 */
function settleLater (db: Queryable, plan: ListPlan, services: EstimateServices, counted?: number): void {
  services.settling.settle(plan.estimateKey, async () => {
    const rowsSeen = counted ?? await countedRows(db, plan, undefined)
    const planned = rowsSeen >= ESTIMATE_COUNT_CAP && plannerMay(plan) ? await plannedRows(db, plan) : 0
    services.estimates.set(plan.estimateKey, { rows: Math.max(rowsSeen, planned), at: Date.now(), waiting: false })
    if (counted === undefined && rowsSeen >= ESTIMATE_COUNT_CAP) services.samples.countedToCap(plan, db)
  })
}
