// Runs read plans on the read-only pool and shapes the list envelope. A get is one statement; a
// list is one statement plus, at most once per filter per 30 s, the planner's estimate.
// `total_size_estimate` is exact for free when the first page holds everything, and never a
// count(*) unless count=exact asks for `total_size`.
import { problem } from '../problems.js'
import { rows, type Queryable } from '../db/query.js'
import { compile } from '../sql/sql.js'
import { compileCount, compileEstimate, compileGet, compileList } from '../sql/read.js'
import type { GetPlan, ListPlan } from '../plan/types.js'
import type { PageTokens } from '../query/page-token.js'
import { BoundedCache } from '../query/cache.js'
import { attachPermissions, needsWholeRecord } from './permissions.js'

export type RecordRow = Record<string, unknown> & { etag: string }

export interface ListEnvelope {
  items: RecordRow[]
  next_page_token: string
  total_size_estimate: number
  total_size?: number
}

/**
 * Runs before a list's queries: may refuse the list (throw a problem) or return a warning for the
 * `X-Service-Warning` header. The scan guard is one.
 */
export type ListGuard = (plan: ListPlan, db: Queryable) => Promise<string | undefined>

export interface ListResult {
  readonly envelope: ListEnvelope
  readonly warnings: readonly string[]
}

const ESTIMATE_TTL_MS = 30_000
const estimates = new BoundedCache<{ rows: number, at: number }>(10_000)

/** The planner's estimate of the filtered rows; the same filter and values reuse it for 30 s. */
async function estimate (db: Queryable, plan: ListPlan): Promise<number> {
  const fragment = compileEstimate(plan)
  const { text, values } = compile(fragment)
  const key = `${text}\0${JSON.stringify(values)}`
  const cached = estimates.get(key)
  if (cached !== undefined && Date.now() - cached.at < ESTIMATE_TTL_MS) return cached.rows
  const [explained] = await rows<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(db, fragment)
  const found = explained?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0
  estimates.set(key, { rows: found, at: Date.now() })
  return found
}

export async function readOne (db: Queryable, plan: GetPlan): Promise<RecordRow> {
  // Record checks decide permissions from the whole readable record; the field mask applies after.
  const whole = needsWholeRecord(plan.permissions)
  const [row] = await rows<RecordRow>(db, compileGet(whole ? { ...plan, select: plan.readable } : plan))
  if (row === undefined) throw problem('not-found', `No ${plan.model.name} has this key.`)
  await attachPermissions([row], plan.permissions, whole ? plan.select : undefined)
  return row
}

export async function readList (db: Queryable, listPlan: ListPlan, tokens: PageTokens, guards: readonly ListGuard[]): Promise<ListResult> {
  const whole = needsWholeRecord(listPlan.permissions)
  const plan = whole ? { ...listPlan, select: listPlan.readable } : listPlan
  const warnings: string[] = []
  for (const guard of guards) {
    const warning = await guard(plan, db)
    if (warning !== undefined) warnings.push(warning)
  }
  const found = await rows<RecordRow>(db, compileList(plan))
  const hasMore = found.length > plan.pageSize
  const page = hasMore ? found.slice(0, plan.pageSize) : found
  const orderKeys = plan.order.map((_, i) => `__order_${i}`)
  const last = page[page.length - 1]
  const nextAfter = hasMore && last !== undefined ? orderKeys.map((k) => last[k] === null ? null : String(last[k])) : undefined
  for (const row of page) {
    for (const k of orderKeys) delete row[k]
  }
  await attachPermissions(page, plan.permissions, whole ? listPlan.select : undefined)
  const envelope: ListEnvelope = {
    items: page,
    next_page_token: nextAfter === undefined ? '' : tokens.encode(plan.shape, nextAfter),
    total_size_estimate: hasMore || plan.after !== undefined ? Math.max(await estimate(db, plan), page.length) : page.length,
  }
  if (plan.count) {
    const [counted] = await rows<{ total: number }>(db, compileCount(plan))
    envelope.total_size = counted!.total
    envelope.total_size_estimate = counted!.total
  }
  return { envelope, warnings }
}
