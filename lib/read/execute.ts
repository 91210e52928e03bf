// Runs read plans in read-only transactions and shapes the list envelope. `total_size_estimate` is
// exact for free when the first page holds everything, else the planner's estimate (never count(*)
// unless count=exact asks for `total_size`).
import { problem } from '../problems.js'
import { rows } from '../db/query.js'
import type { Pool } from '../db/pool.js'
import { withTransaction, type Tx } from '../db/transaction.js'
import { compileCount, compileEstimate, compileGet, compileList } from '../sql/read.js'
import type { GetPlan, ListPlan } from '../plan/types.js'
import type { PageTokens } from '../query/page-token.js'
import { attachPermissions, needsWholeRecord } from './permissions.js'

export type RecordRow = Record<string, unknown> & { etag: string }

export interface ListEnvelope {
  items: RecordRow[]
  next_page_token: string
  total_size_estimate: number
  total_size?: number
}

/**
 * Runs before a list's queries, in its transaction: may refuse the list (throw a problem) or
 * return a warning for the `X-Service-Warning` header. The scan guard is one.
 */
export type ListGuard = (plan: ListPlan, tx: Tx) => Promise<string | undefined>

export interface ListResult {
  readonly envelope: ListEnvelope
  readonly warnings: readonly string[]
}

export async function readOne (pool: Pool, timeoutMs: number, plan: GetPlan): Promise<RecordRow> {
  // Record checks decide permissions from the whole readable record; the field mask applies after.
  const whole = needsWholeRecord(plan.permissions)
  const query = whole ? { ...plan, select: plan.readable } : plan
  const [row] = await withTransaction(pool, { readOnly: true, timeoutMs }, async (tx) => await rows<RecordRow>(tx, compileGet(query)))
  if (row === undefined) throw problem('not-found', `No ${plan.model.name} has this key.`)
  await attachPermissions([row], plan.permissions, whole ? plan.select : undefined)
  return row
}

export async function readList (pool: Pool, timeoutMs: number, listPlan: ListPlan, tokens: PageTokens, guards: readonly ListGuard[]): Promise<ListResult> {
  const whole = needsWholeRecord(listPlan.permissions)
  const plan = whole ? { ...listPlan, select: listPlan.readable } : listPlan
  return await withTransaction(pool, { readOnly: true, timeoutMs }, async (tx) => {
    const warnings: string[] = []
    for (const guard of guards) {
      const warning = await guard(plan, tx)
      if (warning !== undefined) warnings.push(warning)
    }
    const found = await rows<RecordRow>(tx, compileList(plan))
    const hasMore = found.length > plan.pageSize
    const page = hasMore ? found.slice(0, plan.pageSize) : found
    const orderKeys = plan.order.map((_, i) => `__order_${i}`)
    const last = page[page.length - 1]
    const nextAfter = hasMore && last !== undefined ? orderKeys.map((k) => last[k] === null ? null : String(last[k])) : undefined
    for (const row of page) {
      for (const k of orderKeys) delete row[k]
    }
    await attachPermissions(page, plan.permissions, whole ? listPlan.select : undefined)
    let estimate = page.length
    if (hasMore || plan.after !== undefined) {
      const [explained] = await rows<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(tx, compileEstimate(plan))
      estimate = Math.max(explained?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0, page.length)
    }
    const envelope: ListEnvelope = {
      items: page,
      next_page_token: nextAfter === undefined ? '' : tokens.encode(plan.shape, nextAfter),
      total_size_estimate: estimate,
    }
    if (plan.count) {
      const [counted] = await rows<{ total: number }>(tx, compileCount(plan))
      envelope.total_size = counted!.total
      envelope.total_size_estimate = counted!.total
    }
    return { envelope, warnings }
  })
}
