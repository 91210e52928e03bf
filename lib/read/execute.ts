// Runs read plans on the read-only pool and shapes the list envelope. A get is one statement; a
// list is one statement plus, at most once per filter per 30 s, the planner's estimate.
// `total_size_estimate` is exact for free when the first page holds everything, and never a
// count(*) unless count=exact asks for `total_size`.
import { problem } from '../problems.js'
import { isPgError } from '../db/pg-errors.js'
import { rows, type Queryable } from '../db/query.js'
import { compileCount, compileEstimate, compileGet, compileList } from '../sql/read.js'
import type { GetPlan, ListPlan } from '../plan/types.js'
import type { PageTokens } from '../query/page-token.js'
import { BoundedCache } from '../query/cache.js'
import { needsWholeRecord, permissionsByRows, permissionsOf } from './permissions.js'
import { fetchedFields, present, type RecordValues, type Row } from '../serialize/record.js'

export type RecordRow = RecordValues

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
  const key = plan.estimateKey
  const cached = estimates.get(key)
  if (cached !== undefined && Date.now() - cached.at < ESTIMATE_TTL_MS) return cached.rows
  const [explained] = await rows<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(db, compileEstimate(plan))
  const found = explained?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0
  estimates.set(key, { rows: found, at: Date.now() })
  return found
}

/** The response record: selected fields, etag, then permissions when the plan asks for them. */
/**
 * The response records: selected fields, etag, then permissions when the plan asks for them.
 * Only record checks (functions) are awaited; permissions decided by rows alone cost no await.
 */
async function finish (plan: GetPlan | ListPlan, found: readonly Row[]): Promise<RecordRow[]> {
  const { permissions } = plan
  const checked = needsWholeRecord(permissions)
  const records: RecordRow[] = []
  for (const row of found) {
    const record = present(plan, row)
    if (permissions !== undefined) {
      (record as Row).permissions = checked ? await permissionsOf(plan.model, row, permissions) : permissionsByRows(plan.model, row, permissions)
    }
    records.push(record)
  }
  return records
}

/**
 * A data error raised while a list runs comes from a value of its filter or page token that the
 * checker let through (it catches what it can): the caller's filter is what to fix, not a record.
 */
function asFilterProblem (err: unknown, plan: ListPlan): unknown {
  if (!isPgError(err) || !err.code.startsWith('22')) return err
  const detail = 'A value in the filter is out of range or malformed for the database.'
  return problem('invalid-filter', detail, { parameter: 'filter', errors: [{ code: 'invalid-value', message: detail, span: { start: 0, end: plan.filterText.length } }] })
}

export async function readOne (db: Queryable, plan: GetPlan): Promise<RecordRow> {
  const [row] = await rows<Row>(db, compileGet(plan, fetchedFields(plan, needsWholeRecord(plan.permissions))))
  if (row === undefined) throw problem('not-found', `No ${plan.model.name} has this key.`)
  return (await finish(plan, [row]))[0]!
}

export async function readList (db: Queryable, plan: ListPlan, tokens: PageTokens, guards: readonly ListGuard[]): Promise<ListResult> {
  const warnings: string[] = []
  for (const guard of guards) {
    const warning = await guard(plan, db)
    if (warning !== undefined) warnings.push(warning)
  }
  const fetch = fetchedFields(plan, needsWholeRecord(plan.permissions))
  const found = await rows<Row>(db, compileList(plan, fetch)).catch((err: unknown) => { throw asFilterProblem(err, plan) })
  const hasMore = found.length > plan.pageSize
  const page = hasMore ? found.slice(0, plan.pageSize) : found
  const last = page[page.length - 1]
  const nextAfter = hasMore && last !== undefined
    ? plan.order.map((term, i) => {
      const value = fetch.includes(term.field) ? last[term.field.name] : last[`__order_${i}`]
      return value === null || value === undefined ? null : String(value)
    })
    : undefined
  const items = await finish(plan, page)
  const envelope: ListEnvelope = {
    items,
    next_page_token: nextAfter === undefined ? '' : tokens.encode(plan.shape, nextAfter),
    total_size_estimate: hasMore || plan.after !== undefined ? Math.max(await estimate(db, plan), items.length) : items.length,
  }
  if (plan.count) {
    const [counted] = await rows<{ total: number }>(db, compileCount(plan))
    envelope.total_size = counted!.total
    envelope.total_size_estimate = counted!.total
  }
  return { envelope, warnings }
}
