// Runs read plans on the read-only pool and shapes the list and seek envelopes. A get is one
// statement; a seek is one; a list is one statement, plus what its estimate may need (./estimate/)
// and a count on count=exact.
import { problem, recordNotFound } from '../problems.js'
import { isPgError } from '../db/pg-errors.js'
import { rows, type Queryable } from '../db/query.js'
import type { Pool } from '../db/pool.js'
import { compileCount, compileGet, compileList } from '../sql/read.js'
import type { GetPlan, ListPlan } from '../plan/types.js'
import type { PageDirection, PageTokens } from '../query/page-token.js'
import type { StageTimes } from '../timing.js'
import { rowPermissions } from './permissions.js'
import type { Row } from '../serialize/record.js'
import type { Etags } from '../serialize/etag.js'
import { recordBuilder, recordJson } from '../serialize/json.js'
import { listJson, seekJson } from '../serialize/envelopes.js'
import { estimateRows, startEstimate, type EstimateServices } from './estimate/index.js'

/**
 * Runs before a list's queries: may refuse the list (throw a problem) or return a warning for the
 * `X-Service-Warning` header. It gets the read pool. The scan guard is one.
 */
export type ListGuard = (plan: ListPlan, db: Pool) => Promise<string | undefined>

export interface ListResult {
  /** The page as JSON: `items`, `next_page_token`, `total_size_estimate`, and `total_size` on count=exact. */
  readonly json: string
  readonly warnings: readonly string[]
}

/** What reads need of the app. */
export interface ReadServices extends EstimateServices {
  readonly pageTokens: PageTokens
  readonly etags: Etags
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
  const warnings: string[] = []
  for (const guard of guards) {
    const warning = await guard(plan, db)
    if (warning !== undefined) warnings.push(warning)
  }
  const start = plan.kind === 'list' && !plan.count ? startEstimate(plan, services) : undefined
  const found = await rows<Row>(db, compileList(plan, start?.countUpTo)).catch((err: unknown) => { throw asFilterProblem(err, plan) })
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
  let estimated = start === undefined ? page.length : await estimateRows(db, plan, services, start, found).catch((err: unknown) => { throw asFilterProblem(err, plan) })
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
