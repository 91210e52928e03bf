// Runs read plans in read-only transactions and shapes the list envelope. `total_size_estimate` is
// exact for free when the first page holds everything, else the planner's estimate (never count(*)).
import { problem } from '../problems.js'
import { rows } from '../db/query.js'
import type { Pool } from '../db/pool.js'
import { withTransaction } from '../db/transaction.js'
import { compileEstimate, compileGet, compileList } from '../sql/read.js'
import type { GetPlan, ListPlan } from '../plan/types.js'
import type { PageTokens } from '../query/page-token.js'

export type RecordRow = Record<string, unknown> & { etag: string }

export interface ListEnvelope {
  items: RecordRow[]
  next_page_token: string
  total_size_estimate: number
}

/** The shape a page token is bound to: a token is valid only for the same list parameters. */
export function listShape (plan: ListPlan): string {
  return JSON.stringify([plan.model.name, plan.order.map((t) => [t.field.name, t.direction]), plan.scope.showDeleted])
}

export async function readOne (pool: Pool, timeoutMs: number, plan: GetPlan): Promise<RecordRow> {
  const [row] = await withTransaction(pool, { readOnly: true, timeoutMs }, async (tx) => await rows<RecordRow>(tx, compileGet(plan)))
  if (row === undefined) throw problem('not-found', `No ${plan.model.name} has this key.`)
  return row
}

export async function readList (pool: Pool, timeoutMs: number, plan: ListPlan, tokens: PageTokens): Promise<ListEnvelope> {
  return await withTransaction(pool, { readOnly: true, timeoutMs }, async (tx) => {
    const found = await rows<RecordRow>(tx, compileList(plan))
    const hasMore = found.length > plan.pageSize
    const page = hasMore ? found.slice(0, plan.pageSize) : found
    const orderKeys = plan.order.map((_, i) => `__order_${i}`)
    const last = page[page.length - 1]
    const nextAfter = hasMore && last !== undefined ? orderKeys.map((k) => String(last[k])) : undefined
    const items = page.map((row) => {
      for (const k of orderKeys) delete row[k]
      return row
    })
    let estimate = items.length
    if (hasMore || plan.after !== undefined) {
      const [explained] = await rows<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(tx, compileEstimate(plan))
      estimate = Math.max(explained?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0, items.length)
    }
    return {
      items,
      next_page_token: nextAfter === undefined ? '' : tokens.encode(listShape(plan), nextAfter),
      total_size_estimate: estimate,
    }
  })
}
