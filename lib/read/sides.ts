// Which side a list's traversed filter was read from (lib/sql/selective.ts), remembered per list,
// caller and page size for SIDE_TTL_MS. The statement that counts the passing target rows and
// carries both branches reads a list's first page for a filter value; its rows say which branch
// ran, and until the memory expires the list sends that branch alone: no count, no statistics
// read, a third of the text. When it expires the rows are counted again, so a table whose values
// changed is read from its new side within SIDE_TTL_MS. Either side reads the same rows, so no
// answer depends on what is remembered; and it is kept per caller (the list's estimate key names
// the caller wherever a related condition is read: their filter traverses a relation, or their
// row filter narrows them), so no caller's rows choose another's plan, not even its timing.
import { BoundedCache } from '../cache.js'
import type { ListPlan } from '../plan/types.js'
import { selectiveCondition, SIDE_COLUMN, type Side } from '../sql/selective.js'
import type { Row } from '../serialize/record.js'

/** How long a learned side is sent alone before the rows are counted again. */
const SIDE_TTL_MS = 30_000

interface Learned {
  readonly side: Side
  readonly at: number
}

export class TraversalSides {
  // Small entries, one per list, caller and filter value in use: as many as the estimates keep.
  readonly #learned = new BoundedCache<Learned>(5_000)

  /** The side to read the list's related condition from, where it was learned in the last SIDE_TTL_MS; else undefined: count. */
  recall (plan: ListPlan, now = Date.now()): Side | undefined {
    if (selectiveCondition(plan.filter, plan.scope.rows) === undefined) return undefined
    const learned = this.#learned.get(keyOf(plan))
    return learned !== undefined && now - learned.at < SIDE_TTL_MS ? learned.side : undefined
  }

  /** What the counting statement chose, from the rows it read; a page with no row teaches nothing. */
  learn (plan: ListPlan, found: readonly Row[], now = Date.now()): void {
    const collected = found[0]?.[SIDE_COLUMN]
    if (typeof collected !== 'boolean') return
    this.#learned.set(keyOf(plan), { side: collected ? 'collected' : 'walked', at: now })
  }
}

/** The list (resource, filter with its values, order, show_deleted), the caller, and the rows the page reads: what the choice depends on. */
function keyOf (plan: ListPlan): string {
  return `${plan.estimateKey}\0${plan.pageSize + 1 + plan.position}`
}
